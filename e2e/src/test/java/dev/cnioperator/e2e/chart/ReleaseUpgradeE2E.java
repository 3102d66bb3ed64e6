package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Day two, on two kubelet nodes: the previous release of the product (built from its tag by
 * e2e/bin/release-upgrade) runs with live pods on a pod network of its own with a staged rollout, a
 * chain declared onto a flannel-style network another product installs, and a Multus secondary
 * network (macvlan, each node's slice of one subnet, {@link ThinMultus}) on every pod; it is
 * upgraded to this tree by exactly the commands of docs/install.md (Upgrade), then rolled back to
 * it by those of Roll back. Throughout, no conflist goes missing on any node, no pod loses its
 * sandbox or either address, and every network stays Ready; after each step every operator and
 * agent pod runs the images of the release it went to, by digest, a conflist whose content did not
 * change was not rewritten, and host-local holds exactly the live pods' secondary addresses.
 *
 * <p>Tagged {@value #TAG}: it needs the previous release built ({@code
 * CNI_OPERATOR_PREVIOUS_RELEASE}, its source tree with both image tarballs), which
 * e2e/bin/release-upgrade makes before it runs this class; the README's test command leaves it out.
 */
@Tag(ReleaseUpgradeE2E.TAG)
class ReleaseUpgradeE2E {
  static final String TAG = "release-upgrade";

  private static final Duration ROLLOUT = Duration.ofMinutes(4);
  private static final String POD_NETWORK = "apps";
  // Sorts before the flannel-style file: the runtime's default network, the one the pods are on.
  private static final String POD_NETWORK_FILE = "10-" + POD_NETWORK + ".conflist";
  private static final String CHAIN = "shaping";
  private static final String LAN = "lan";
  private static final String LAN_FILE = "50-" + LAN + ".conflist";

  /** The secondary network's subnet: the test's own (the cluster's pods are in 10.232.0.0/16). */
  private static final String LAN_SUBNET = "10.234.0.0/24";

  private static final List<String> FILES =
      List.of(POD_NETWORK_FILE, ForeignPrimary.FILE, LAN_FILE);
  private static final List<String> NETWORKS = List.of(POD_NETWORK, CHAIN, LAN);

  private static KubeletCluster cluster;
  private static LocalControlPlane cp;
  private static PublishedProduct previous;
  private static PublishedProduct current;
  private static ChartRelease release;
  private static String apps;
  private static ThinMultus multus;

  @BeforeAll
  static void startOnThePreviousRelease() throws IOException {
    String dir = System.getenv("CNI_OPERATOR_PREVIOUS_RELEASE");
    if (dir == null || !Files.isDirectory(Path.of(dir))) {
      throw new IllegalStateException(
          "CNI_OPERATOR_PREVIOUS_RELEASE names no built source tree of the previous release ("
              + dir
              + "): run e2e/bin/release-upgrade, which builds it and runs this class");
    }
    cluster = KubeletCluster.start(2);
    try {
      cp = cluster.controlPlane();
      Helm helm = Helm.provisioned();
      previous = PublishedProduct.publishFrom(cluster, helm, Path.of(dir));
      current = PublishedProduct.publish(cluster, helm);
      assertThat(current.version())
          .as("this tree's chart version, against the previous release's")
          .isNotEqualTo(previous.version());
      multus = ThinMultus.prepare(cluster, POD_NETWORK_FILE);
      release = ChartRelease.install(cp, previous, "rel", ChartRelease.onNodes(cluster));
      cp.kubectlWithInput(
              ClusterNetworks.podNetwork(
                  POD_NETWORK, "cbrel0", "rollout: {maxNodes: \"1\", pauseSeconds: 2}", ""),
              "apply",
              "-f",
              "-")
          .orThrow("kubectl apply of the pod network");
      release.awaitProductRollout(cluster, ROLLOUT);
      ForeignPrimary.install(
          cp,
          release,
          cp.client().nodes().withName(cluster.nodes().get(0).name()).get().getSpec().getPodCIDR());
      cp.kubectlWithInput(ForeignPrimary.chain(CHAIN, 1400), "apply", "-f", "-")
          .orThrow("kubectl apply of the declared chain");
      ClusterNetworks networks = ClusterNetworks.on(cp);
      networks.waitReady(POD_NETWORK);
      networks.waitReady(CHAIN);
      await("the chain appended to the flannel-style file on every node")
          .atMost(ROLLOUT)
          .untilAsserted(
              () -> {
                for (KubeletNode node : cluster.nodes()) {
                  assertThat(ForeignPrimary.types(node))
                      .as("plugins of %s on %s", ForeignPrimary.FILE, node.name())
                      .containsExactly("bridge", "portmap", "tuning", "bandwidth");
                }
              });
      multus.install();
      apps = NodePods.appsNamespace(cp.client());
      cp.kubectlWithInput(
              ThinMultus.macvlanNetwork(LAN, 50, apps, LAN_SUBNET, ""), "apply", "-f", "-")
          .orThrow("kubectl apply of the secondary network");
      networks.waitReady(LAN);
      ThinMultus.createPausePods(cp.client(), apps, 4, LAN);
      NodePods.awaitRunningPods(cp.client(), apps, 4);
    } catch (Throwable e) {
      stopCluster();
      throw e;
    }
  }

  @AfterAll
  static void stopCluster() {
    Path logs = Path.of("target/it-logs/release-upgrade").toAbsolutePath();
    Teardown.closeAll(
        () -> {
          if (cluster != null) {
            PodLogs.keep(cluster, logs);
          }
        },
        () -> {
          if (multus != null) {
            multus.keepLogs(logs.resolve("multus"));
          }
        },
        release,
        cluster,
        multus);
  }

  @Test
  void theDocumentedUpgradeThenTheRollbackKeepEveryPodAndEveryUnchangedFile() throws Exception {
    KubernetesClient client = cp.client();
    assertProductRuns(previous);
    Map<String, FileIdentity> filesBefore = files();
    Map<String, PodState> podsBefore = pods(client);
    assertThat(podsBefore).hasSize(4);

    // docs/install.md, Upgrade: the new CRDs, then the release with the new chart's defaults.
    Step upgrade =
        Step.watch(
            "upgrade",
            () -> {
              String crds =
                  helm(concat(List.of("show", "crds"), current.helmChartArgs()))
                      .orThrow("helm show crds")
                      .stdout();
              cp.kubectlWithInput(crds, "apply", "--server-side", "--force-conflicts", "-f", "-")
                  .orThrow("kubectl apply --server-side of the new CRDs");
              helm(concat(
                      List.of("upgrade", release.name()),
                      current.helmChartArgs(),
                      List.of(
                          "-n",
                          release.namespace(),
                          "--reset-then-reuse-values",
                          "--wait",
                          "--timeout",
                          ROLLOUT.toSeconds() + "s")))
                  .orThrow("helm upgrade --reset-then-reuse-values");
              release.awaitProductRollout(cluster, ROLLOUT);
            });
    assertProductRuns(current);
    upgrade.assertNothingLost(client, filesBefore, podsBefore);

    // docs/install.md, Roll back: to the revision the release was installed at.
    Map<String, FileIdentity> filesUpgraded = files();
    Step rollback =
        Step.watch(
            "rollback",
            () -> {
              helm(List.of(
                      "rollback",
                      release.name(),
                      "1",
                      "-n",
                      release.namespace(),
                      "--wait",
                      "--timeout",
                      ROLLOUT.toSeconds() + "s"))
                  .orThrow("helm rollback to revision 1");
              release.awaitProductRollout(cluster, ROLLOUT);
            });
    assertProductRuns(previous);
    rollback.assertNothingLost(client, filesUpgraded, podsBefore);
  }

  private static CommandResult helm(List<String> args) {
    return release.helm(ROLLOUT.plusMinutes(1), args);
  }

  @SafeVarargs
  private static List<String> concat(List<String>... parts) {
    List<String> all = new ArrayList<>();
    for (List<String> part : parts) {
      all.addAll(part);
    }
    return all;
  }

  /** One step under watch: every file on every node, every network's Ready condition. */
  private record Step(
      String name, List<ConflistWatch> watches, List<ReadySamples> samples, long millis) {

    static Step watch(String name, ThrowingRunnable step) throws Exception {
      List<ConflistWatch> watches = new ArrayList<>();
      for (String file : FILES) {
        watches.add(ConflistWatch.start(cluster.nodes(), node -> path(node, file)));
      }
      List<ReadySamples> samples = new ArrayList<>();
      for (String network : NETWORKS) {
        samples.add(ReadySamples.start(cp, network));
      }
      long t0 = System.nanoTime();
      try {
        step.run();
        // A few CHECK intervals (5 s) of the agents now running, and their status renewals.
        for (ReadySamples s : samples) {
          s.awaitSamples(20);
        }
      } finally {
        for (ConflistWatch w : watches) {
          w.stop();
        }
        for (ReadySamples s : samples) {
          s.stop();
        }
      }
      Step done = new Step(name, watches, samples, (System.nanoTime() - t0) / 1_000_000);
      System.out.printf(
          "event=release-upgrade-step step=%s ms=%d ready_samples=%s%n",
          name, done.millis(), samples.stream().map(ReadySamples::readyCount).toList());
      return done;
    }

    /**
     * No file went missing, none whose content is the same was rewritten, every pod kept its
     * sandbox and both addresses and answers on both, host-local holds exactly the pods' secondary
     * addresses, the chain is still appended, and every network was Ready at every sample.
     */
    void assertNothingLost(
        KubernetesClient client, Map<String, FileIdentity> files, Map<String, PodState> pods) {
      for (int i = 0; i < FILES.size(); i++) {
        assertThat(watches.get(i).misses())
            .as("moments a node had no %s during the %s", FILES.get(i), name)
            .isEmpty();
      }
      for (int i = 0; i < NETWORKS.size(); i++) {
        assertThat(samples.get(i).notReady())
            .as("samples of %s's Ready that were not True during the %s", NETWORKS.get(i), name)
            .isEmpty();
      }
      Map<String, FileIdentity> now = files();
      for (Map.Entry<String, FileIdentity> before : files.entrySet()) {
        FileIdentity after = now.get(before.getKey());
        if (after.content().equals(before.getValue().content())) {
          assertThat(after)
              .as("%s, its content unchanged by the %s, not rewritten", before.getKey(), name)
              .isEqualTo(before.getValue());
        } else {
          System.out.printf(
              "event=release-upgrade-rewritten step=%s file=%s before=%s after=%s%n",
              name, before.getKey(), before.getValue().content(), after.content());
        }
      }
      assertThat(pods(client))
          .as("every pod's node, sandbox and addresses after the %s", name)
          .isEqualTo(pods);
      Map<KubeletNode, Pod> oneOnEachNode = new LinkedHashMap<>();
      for (KubeletNode node : cluster.nodes()) {
        assertThat(ForeignPrimary.types(node))
            .as("plugins of %s on %s after the %s", ForeignPrimary.FILE, node.name(), name)
            .containsExactly("bridge", "portmap", "tuning", "bandwidth");
        List<Pod> onNode = NodePods.runningPods(client, apps, node);
        assertThat(NodePods.tcpAnswer(node, onNode.get(0), onNode.get(1)))
            .as("TCP between two pods of %s after the %s", node.name(), name)
            .isEqualTo("pong");
        assertThat(ThinMultus.reservations(node, LAN))
            .as("%s's addresses host-local holds on %s after the %s", LAN, node.name(), name)
            .isEqualTo(
                onNode.stream()
                    .map(p -> ThinMultus.address(p, "net1"))
                    .collect(Collectors.toCollection(TreeSet::new)));
        oneOnEachNode.put(node, onNode.get(0));
      }
      List<Map.Entry<KubeletNode, Pod>> pair = List.copyOf(oneOnEachNode.entrySet());
      assertThat(
              NodePods.tcpAnswer(
                  pair.get(0).getKey(),
                  pair.get(0).getValue(),
                  pair.get(1).getKey(),
                  pair.get(1).getValue(),
                  ThinMultus.address(pair.get(1).getValue(), "net1")))
          .as("TCP over %s from a pod on one node to a pod on the other after the %s", LAN, name)
          .isEqualTo("pong");
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  /** Every operator and agent pod of the release runs {@code product}'s images, by digest. */
  private static void assertProductRuns(PublishedProduct product) {
    await("every operator and agent pod on " + product.version())
        .atMost(ROLLOUT)
        .untilAsserted(
            () -> {
              List<Pod> pods =
                  cp.client().pods().inNamespace(release.namespace()).list().getItems().stream()
                      .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                      .toList();
              Map<String, List<String>> images = new LinkedHashMap<>();
              for (Pod pod : pods) {
                String component = pod.getMetadata().getLabels().get("app.kubernetes.io/component");
                if ("operator".equals(component) || "agent".equals(component)) {
                  images
                      .computeIfAbsent(component, c -> new ArrayList<>())
                      .addAll(
                          pod.getSpec().getContainers().stream().map(Container::getImage).toList());
                }
              }
              assertThat(images.get("operator"))
                  .as("the operator pods' images")
                  .isNotEmpty()
                  .allMatch(i -> i.endsWith("@" + product.operatorDigest()));
              assertThat(images.get("agent"))
                  .as("the agent pods' images")
                  .hasSize(cluster.nodes().size())
                  .allMatch(i -> i.endsWith("@" + product.agentDigest()));
            });
  }

  /** Every conflist on every node, by {@code <node>/<file>}. */
  private static Map<String, FileIdentity> files() {
    Map<String, FileIdentity> files = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      for (String file : FILES) {
        files.put(node.name() + "/" + file, FileIdentity.of(path(node, file)));
      }
    }
    return files;
  }

  /** Where {@code file} is on {@code node}: the secondary network's in Multus's conf dir. */
  private static Path path(KubeletNode node, String file) {
    return LAN_FILE.equals(file)
        ? node.hostPath(ThinMultus.CONF_DIR).resolve(file)
        : node.cniConfDir().resolve(file);
  }

  /** A pod's node, sandbox and pod network address, and its address on the secondary network. */
  private record PodState(PodSandbox sandbox, String secondaryAddress) {}

  /** Every test pod's state, by uid. */
  private static Map<String, PodState> pods(KubernetesClient client) {
    Map<String, PodState> pods = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      for (Pod pod : NodePods.runningPods(client, apps, node)) {
        pods.put(
            pod.getMetadata().getUid(),
            new PodState(PodSandbox.of(node, pod), ThinMultus.address(pod, "net1")));
      }
    }
    return pods;
  }
}
