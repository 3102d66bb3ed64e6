package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.CniNetworkYaml;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.e2e.chart.ChartRelease;
import dev.cnioperator.e2e.chart.PodLogs;
import dev.cnioperator.e2e.chart.PublishedProduct;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * How a change reaches the nodes, against the installers users run today, on real kubelet nodes
 * whose kubelets run with the kubelet's default sync period (1 min), not the test kit's 10 s.
 *
 * <p>Two peers ship the same bridge + host-local conflist in a ConfigMap that a DaemonSet pod
 * copies into every node's conf dir, the pattern of Calico's install-cni, flannel's {@code
 * kube-flannel-cfg} and most in-house installers:
 *
 * <ul>
 *   <li><b>mounted ConfigMap</b>: a long-running copier rewrites the node's file when the mounted
 *       ConfigMap's file changes (checked every second; Calico's install-cni watches the file). The
 *       change reaches it when the kubelet refreshes the volume, on the pod's next sync.
 *   <li><b>rollout restart</b>: an init container copies the file once; an edit is the ConfigMap's
 *       write then {@code kubectl rollout restart} of the DaemonSet, which replaces the pods one
 *       node at a time (the DaemonSet default, {@code maxUnavailable: 1}).
 * </ul>
 *
 * <p>Against them, the product with its defaults (canary, then 25% of the nodes a batch, each node
 * proving the revision) and with a rollout of every node in one batch. Every time is from the API
 * write of the edit to the new bytes on the last node, read from the nodes' conf dirs every 20 ms.
 * Then a broken edit (a bridge MTU no interface takes, which fails every pod's ADD): how many nodes
 * got it.
 *
 * <p>{@code e2e/bin/bench rollout [runs=3] [nodes...=3 6 12]}: the cluster grows from one size to
 * the next
 */
public final class RolloutPeersBench {
  private static final Duration POLL = Duration.ofMillis(20);
  private static final Duration WAIT = Duration.ofMinutes(5);
  private static final String POD_NETWORK = "bench";
  private static final String WATCH_FILE = "90-peer-mounted.conflist";
  private static final String RESTART_FILE = "90-peer-restart.conflist";
  private static final String STAGED = "bench-staged";
  private static final String ONE_BATCH = "bench-onebatch";
  private static final int BROKEN_MTU = 70000;

  /** Every node in one batch, no canary (still each node proving the revision). */
  private static final String ONE_BATCH_ROLLOUT = "rollout: {maxNodes: \"100%\", canaryNodes: 0}";

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    List<Integer> sizes = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      sizes.add(Integer.parseInt(args[i]));
    }
    if (sizes.isEmpty()) {
      sizes = List.of(3, 6, 12);
    }
    try (KubeletCluster cluster =
        KubeletCluster.start(
            sizes.get(0),
            ContainerdRelease.DEBIAN_1_6,
            KubeletNode.KUBELET_DEFAULT_SYNC_FREQUENCY)) {
      PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
      try (ChartRelease release = install(cluster, product)) {
        new RolloutPeersBench(cluster, release).run(runs, sizes);
      }
    }
    System.exit(0);
  }

  private final KubeletCluster cluster;
  private final LocalControlPlane cp;
  private final KubernetesClient client;
  private final ChartRelease release;
  private final String peers = TestNames.unique("peers");

  /** Per cluster size, per row. */
  private final Map<Integer, Map<String, Samples>> times = new LinkedHashMap<>();

  private final Map<String, String> broken = new LinkedHashMap<>();

  private RolloutPeersBench(KubeletCluster cluster, ChartRelease release) {
    this.cluster = cluster;
    this.cp = cluster.controlPlane();
    this.client = cp.client();
    this.release = release;
  }

  private static ChartRelease install(KubeletCluster cluster, PublishedProduct product) {
    URI api = URI.create(cluster.bridge().apiServerUrl());
    ChartRelease release =
        ChartRelease.install(
            cluster.controlPlane(),
            product,
            "bench",
            "--set-string",
            "apiServer.host=" + api.getHost(),
            "--set",
            "apiServer.port=" + api.getPort());
    try {
      cluster
          .controlPlane()
          .kubectlWithInput(ClusterNetworks.podNetwork(POD_NETWORK, "cbbench0"), "apply", "-f", "-")
          .orThrow("kubectl apply of the pod network");
      String fullname = release.name() + "-cni-operator";
      release.awaitRollout(cluster, "daemonset/" + fullname + "-agent", WAIT);
      release.awaitRollout(cluster, "deployment/" + fullname + "-operator", WAIT);
      return release;
    } catch (RuntimeException e) {
      release.close();
      throw e;
    }
  }

  private void run(int runs, List<Integer> sizes) throws Exception {
    String image =
        client
            .apps()
            .daemonSets()
            .inNamespace(release.namespace())
            .withName(release.name() + "-cni-operator-agent")
            .get()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getImage();
    cp.kubectl("create", "namespace", peers).orThrow("kubectl create namespace " + peers);
    cp.kubectl("label", "namespace", peers, "pod-security.kubernetes.io/enforce=privileged")
        .orThrow("kubectl label namespace " + peers);
    try {
      int mtu = 1500;
      writeConfigMap("peer-mounted", WATCH_FILE, peerConflist("peer-mounted", "cbpm0", 62, mtu));
      writeConfigMap("peer-restart", RESTART_FILE, peerConflist("peer-restart", "cbpr0", 63, mtu));
      apply(peerDaemonSets(image));
      applyNetwork(STAGED, 64, mtu, "");
      applyNetwork(ONE_BATCH, 65, mtu, ONE_BATCH_ROLLOUT);
      for (int size : sizes) {
        while (cluster.nodes().size() < size) {
          cluster.addNode(ContainerdRelease.DEBIAN_1_6);
        }
        awaitEverything(mtu);
        mtu = measure(runs, mtu);
      }
      brokenEdits();
      report(runs);
    } finally {
      Path logs = BenchReport.outputDir().resolve("work/rollout/pod-logs");
      PodLogs.keep(cluster, logs);
      System.out.println("bench=rollout pod logs kept in " + logs);
      cp.kubectl("delete", "namespace", peers, "--wait=true", "--timeout=120s");
      cp.kubectl("delete", "cninetwork", STAGED, ONE_BATCH, "--ignore-not-found");
      for (KubeletNode n : cluster.nodes()) {
        for (String f : List.of(WATCH_FILE, RESTART_FILE)) {
          Files.deleteIfExists(n.cniConfDir().resolve(f));
        }
      }
    }
  }

  /** Every node running the agent and both peers, and holding all four files at {@code mtu}. */
  private void awaitEverything(int mtu) throws Exception {
    release.awaitRollout(cluster, "daemonset/" + release.name() + "-cni-operator-agent", WAIT);
    for (String peer : List.of("peer-mounted", "peer-restart")) {
      cp.kubectl(WAIT.plusSeconds(30), "-n", peers, "rollout", "status", "daemonset/" + peer)
          .orThrow("rollout status " + peer);
    }
    for (String f : List.of(WATCH_FILE, RESTART_FILE, file(STAGED), file(ONE_BATCH))) {
      awaitEveryNode(f, mtuIs(mtu), WAIT);
    }
    awaitRolledOut(STAGED);
    awaitRolledOut(ONE_BATCH);
  }

  /** {@code runs} edits of each of the four, interleaved; returns the MTU the nodes hold. */
  private int measure(int runs, int mtu) throws Exception {
    for (int r = 1; r <= runs; r++) {
      mtu -= 10;
      int m = mtu;
      time(
          "mounted ConfigMap",
          WATCH_FILE,
          m,
          () ->
              writeConfigMap(
                  "peer-mounted", WATCH_FILE, peerConflist("peer-mounted", "cbpm0", 62, m)));
      time(
          "rollout restart",
          RESTART_FILE,
          m,
          () -> {
            writeConfigMap(
                "peer-restart", RESTART_FILE, peerConflist("peer-restart", "cbpr0", 63, m));
            cp.kubectl("-n", peers, "rollout", "restart", "daemonset/peer-restart")
                .orThrow("kubectl rollout restart");
          });
      time(
          "product, default staged rollout",
          file(STAGED),
          m,
          () -> applyNetwork(STAGED, 64, m, ""));
      awaitRolledOut(STAGED);
      time(
          "product, one batch",
          file(ONE_BATCH),
          m,
          () -> applyNetwork(ONE_BATCH, 65, m, ONE_BATCH_ROLLOUT));
      awaitRolledOut(ONE_BATCH);
      System.out.printf("bench=rollout nodes=%d run=%d/%d done%n", cluster.nodes().size(), r, runs);
    }
    return mtu;
  }

  /** Every peer and the product given a conflist whose bridge MTU fails every ADD. */
  private void brokenEdits() throws Exception {
    Predicate<String> isBroken = mtuIs(BROKEN_MTU);
    writeConfigMap(
        "peer-mounted", WATCH_FILE, peerConflist("peer-mounted", "cbpm0", 62, BROKEN_MTU));
    broken.put("mounted ConfigMap", reached(WATCH_FILE, isBroken, Duration.ofMinutes(3)));
    writeConfigMap(
        "peer-restart", RESTART_FILE, peerConflist("peer-restart", "cbpr0", 63, BROKEN_MTU));
    cp.kubectl("-n", peers, "rollout", "restart", "daemonset/peer-restart")
        .orThrow("kubectl rollout restart");
    broken.put("rollout restart", reached(RESTART_FILE, isBroken, Duration.ofMinutes(3)));
    for (String network : List.of(STAGED, ONE_BATCH)) {
      String rollout = network.equals(STAGED) ? "" : ONE_BATCH_ROLLOUT;
      int priority = network.equals(STAGED) ? 64 : 65;
      long t0 = System.nanoTime();
      applyNetwork(network, priority, BROKEN_MTU, rollout);
      NodesSeen seen = new NodesSeen(file(network), isBroken);
      String outcome = "";
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (System.nanoTime() < deadline) {
        seen.poll(t0);
        CniNetwork n = network(network);
        if (n.getStatus() != null
            && n.getStatus().getRollout() != null
            && n.getStatus().getRollout().getPhase() == RolloutPhase.RolledBack
            && seen.holdingNow() == 0) {
          outcome = "rolled back in %.1f s".formatted((System.nanoTime() - t0) / 1e9);
          break;
        }
        Thread.sleep(POLL.toMillis());
      }
      broken.put(
          network.equals(STAGED) ? "product, default staged rollout" : "product, one batch",
          "%d of %d nodes; %s"
              .formatted(
                  seen.everHeld(),
                  cluster.nodes().size(),
                  outcome.isEmpty()
                      ? "not rolled back within " + WAIT.toMinutes() + " min"
                      : outcome));
    }
  }

  /** Which nodes held a matching file, ever and now. */
  private final class NodesSeen {
    private final String file;
    private final Predicate<String> matches;
    private final Map<String, Long> first = new LinkedHashMap<>();
    private int holding;

    NodesSeen(String file, Predicate<String> matches) {
      this.file = file;
      this.matches = matches;
    }

    void poll(long t0) throws IOException {
      holding = 0;
      for (KubeletNode n : cluster.nodes()) {
        if (matches.test(read(n, file))) {
          holding++;
          first.putIfAbsent(n.name(), (System.nanoTime() - t0) / 1_000_000);
        }
      }
    }

    int everHeld() {
      return first.size();
    }

    int holdingNow() {
      return holding;
    }

    long last() {
      return first.values().stream().mapToLong(Long::longValue).max().orElse(-1);
    }
  }

  private String reached(String file, Predicate<String> matches, Duration timeout)
      throws Exception {
    long t0 = System.nanoTime();
    NodesSeen seen = new NodesSeen(file, matches);
    long deadline = t0 + timeout.toNanos();
    while (seen.everHeld() < cluster.nodes().size() && System.nanoTime() < deadline) {
      seen.poll(t0);
      Thread.sleep(POLL.toMillis());
    }
    return "%d of %d nodes (the last after %.1f s)"
        .formatted(seen.everHeld(), cluster.nodes().size(), seen.last() / 1000.0);
  }

  private interface Edit {
    void apply() throws Exception;
  }

  private void time(String row, String file, int mtu, Edit edit) throws Exception {
    long t0 = System.nanoTime();
    edit.apply();
    long ms = awaitEveryNode(file, mtuIs(mtu), WAIT, t0);
    times
        .computeIfAbsent(cluster.nodes().size(), k -> new LinkedHashMap<>())
        .computeIfAbsent(row, k -> new Samples())
        .add(ms);
    System.out.printf(
        "bench=rollout nodes=%d row=\"%s\" mtu=%d last_node_ms=%d%n",
        cluster.nodes().size(), row, mtu, ms);
  }

  private long awaitEveryNode(String file, Predicate<String> matches, Duration timeout)
      throws Exception {
    return awaitEveryNode(file, matches, timeout, System.nanoTime());
  }

  /** Milliseconds from {@code t0} until every node's {@code file} matched. */
  private long awaitEveryNode(String file, Predicate<String> matches, Duration timeout, long t0)
      throws Exception {
    NodesSeen seen = new NodesSeen(file, matches);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (seen.everHeld() < cluster.nodes().size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "%s matched on %d of %d nodes after %s\n%s"
                .formatted(file, seen.everHeld(), cluster.nodes().size(), timeout, diagnosis()));
      }
      seen.poll(t0);
      Thread.sleep(POLL.toMillis());
    }
    return seen.last();
  }

  /** What the API server holds of the product and the end of its pods' logs. */
  private String diagnosis() {
    return String.join(
        "\n",
        "$ kubectl get cninetworks -o yaml",
        cp.kubectl("get", "cninetworks", "-o", "yaml").stdout(),
        "$ kubectl get cninodes -o yaml",
        cp.kubectl("get", "cninodes", "-o", "yaml").stdout(),
        "$ kubectl get pods -A -o wide",
        cp.kubectl("get", "pods", "-A", "-o", "wide").stdout(),
        PodLogs.tails(cluster, release.namespace()));
  }

  private static String read(KubeletNode node, String file) throws IOException {
    try {
      return Files.readString(node.cniConfDir().resolve(file), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return "";
    }
  }

  private static Predicate<String> mtuIs(int mtu) {
    Pattern p = Pattern.compile("\"mtu\"\\s*:\\s*" + mtu + "\\b");
    return s -> p.matcher(s).find();
  }

  private void report(int runs) {
    BenchReport report =
        new BenchReport(
            "rollout",
            "How an edit reaches the last kubelet node: ConfigMap installers and the product");
    BenchReport.Table table =
        report.table(
            "nodes",
            "how the conflist is shipped",
            "edit → last node, median",
            "p99",
            "runs",
            "÷ product, staged");
    times.forEach(
        (nodes, rows) -> {
          double staged = rows.get("product, default staged rollout").median();
          rows.forEach(
              (row, s) ->
                  table.row(
                      nodes,
                      row,
                      seconds(s.median()),
                      seconds(s.p99()),
                      String.valueOf(s.count()),
                      "%.1f ×".formatted(s.median() / staged)));
        });
    table.end();
    BenchReport.Table bad =
        report.table(
            "a broken edit (bridge mtu 70000) on %d nodes".formatted(cluster.nodes().size()),
            "nodes that got it");
    broken.forEach(bad::row);
    bad.end();
    report.note(
        "Kubelets with their default syncFrequency (1 min) and ConfigMap change detection (Watch);"
            + " the mounted-ConfigMap copier checks its file every second; the restart peer's"
            + " pods end at once on SIGTERM. Medians of %d run(s), the four rows interleaved in each."
                .formatted(runs));
    report.write();
  }

  private static String seconds(double ms) {
    return String.format(Locale.ROOT, "%.1f s", ms / 1000);
  }

  private static String file(String network) {
    return "90-" + network + ".conflist";
  }

  private CniNetwork network(String name) {
    return client.resources(CniNetwork.class).withName(name).get();
  }

  private void applyNetwork(String name, int subnet, int mtu, String rollout) {
    apply(networkYaml(name, subnet, mtu, rollout));
  }

  private static String networkYaml(String name, int subnet, int mtu, String rollout) {
    CniNetworkYaml yaml =
        CniNetworkYaml.named(name)
            .priority(90)
            .plugin(
                "type: bridge\nbridge: %s\nmtu: %d\n%s"
                    .formatted(
                        "cb" + subnet + "0",
                        mtu,
                        CniNetworkYaml.hostLocal(
                            "[[{subnet: 10.220.%d.0/24}]]".formatted(subnet), null)));
    return rollout.isEmpty() ? yaml.yaml() : yaml.spec(rollout).yaml();
  }

  private void awaitRolledOut(String name) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      CniNetwork n = network(name);
      if (n.getStatus() != null
          && n.getMetadata().getGeneration().equals(n.getStatus().getObservedGeneration())
          && n.getStatus().getRollout() != null
          && n.getStatus().getRollout().getPhase() == RolloutPhase.Complete) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "network "
                + name
                + " not rolled out:\n"
                + cp.kubectl("describe", "cninetwork", name).stdout());
      }
      Thread.sleep(200);
    }
  }

  private void apply(String yaml) {
    cp.kubectlWithInput(yaml, "apply", "-f", "-").orThrow("kubectl apply");
  }

  private void writeConfigMap(String name, String key, String conflist) {
    client
        .configMaps()
        .inNamespace(peers)
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addToData(key, conflist)
                .build())
        .serverSideApply();
  }

  /** The conflist the product renders for the same plugins, shipped by a peer. */
  private static String peerConflist(String name, String bridge, int subnet, int mtu) {
    return """
        {
          "cniVersion": "1.0.0",
          "name": "%s",
          "plugins": [
            {
              "type": "bridge",
              "bridge": "%s",
              "mtu": %d,
              "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.220.%d.0/24"}]]}
            }
          ]
        }
        """
        .formatted(name, bridge, mtu, subnet);
  }

  /** The two peers: a copier that follows the mounted file, and a copy made at each pod start. */
  private String peerDaemonSets(String image) {
    String copy =
        "cp /config/$F /host/etc/cni/net.d/.$F.tmp && mv /host/etc/cni/net.d/.$F.tmp"
            + " /host/etc/cni/net.d/$F";
    String idle = "trap 'exit 0' TERM; while :; do sleep 1 & wait $!; done";
    String follow =
        "trap 'exit 0' TERM; while :; do if [ \"$(cat /config/$F)\" != \"$(cat"
            + " /host/etc/cni/net.d/$F 2>/dev/null)\" ]; then "
            + copy
            + "; fi; sleep 1 & wait $!; done";
    List<String> docs = new ArrayList<>();
    docs.add(daemonSet("peer-mounted", WATCH_FILE, image, "", follow));
    docs.add(
        daemonSet(
            "peer-restart",
            RESTART_FILE,
            image,
            String.join(
                "\n",
                "      initContainers:",
                "      - name: install-cni",
                "        image: " + image,
                "        command: [\"/bin/sh\", \"-c\", " + quote(copy) + "]",
                "        env: [{name: F, value: " + RESTART_FILE + "}]",
                "        volumeMounts:",
                "        - {name: config, mountPath: /config}",
                "        - {name: netd, mountPath: /host/etc/cni/net.d}",
                ""),
            idle));
    return String.join("---\n", docs);
  }

  private String daemonSet(String name, String file, String image, String init, String command) {
    return """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: %1$s, namespace: %2$s}
        spec:
          selector: {matchLabels: {app: %1$s}}
          template:
            metadata: {labels: {app: %1$s}}
            spec:
              hostNetwork: true
              tolerations: [{operator: Exists}]
              terminationGracePeriodSeconds: 30
        %3$s      containers:
              - name: copier
                image: %4$s
                command: ["/bin/sh", "-c", %5$s]
                env: [{name: F, value: %6$s}]
                volumeMounts:
                - {name: config, mountPath: /config}
                - {name: netd, mountPath: /host/etc/cni/net.d}
              volumes:
              - {name: config, configMap: {name: %1$s}}
              - {name: netd, hostPath: {path: /etc/cni/net.d}}
        """
        .formatted(name, peers, init, image, quote(command), file);
  }

  private static String quote(String s) {
    return "'" + s.replace("'", "''") + "'";
  }
}
