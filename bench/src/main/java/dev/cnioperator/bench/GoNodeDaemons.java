package dev.cnioperator.bench;

import dev.cnioperator.testkit.ApiServerProxy;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Go node daemons users run for the agent's job, set up against a benchmark's control plane for
 * one node: Multus's thick daemon, whereabouts' ip-control-loop and flanneld, each as its
 * DaemonSet's container runs it (its CRDs applied, configured in-cluster or by kubeconfig). Multus
 * and whereabouts configure their client in-cluster, from a pod's ServiceAccount files at a fixed
 * path, so each runs chrooted in a root of its own (both are static binaries) holding those files
 * and what its DaemonSet mounts. They authenticate as one ServiceAccount bound to cluster-admin
 * ({@link #IDENTITY}), not with the narrower RBAC of their upstream manifests: what a node pays
 * does not depend on which verbs a token may use. flanneld makes a VXLAN device and routes, so it
 * runs in a network namespace of its own, joined to the host by a veth in {@link #BENCH_RANGE} and
 * reaching the API server through a proxy on the veth's host end. {@link #close} removes the
 * namespace, the veth, the proxy and the roots.
 */
final class GoNodeDaemons implements AutoCloseable {
  /** The addresses of this benchmark: flannel's network and the veth. */
  static final String BENCH_RANGE = "10.220.0.0/16";

  /** flannel's network (net-conf.json) and the node's pod CIDR in it. */
  static final String FLANNEL_NETWORK = "10.220.0.0/17";

  static final String POD_CIDR = "10.220.1.0/24";

  private static final String VETH_HOST = "10.220.200.1";
  private static final String VETH_NODE = "10.220.200.2";
  private static final String PEERS = "nodepays-peers";

  static final String IDENTITY =
      "ServiceAccount kube-system/" + PEERS + " bound to cluster-admin (in-cluster token)";

  private final String node;
  private final Path dir;
  private final Path serviceAccount;
  private final Map<String, String> inCluster;
  private NetworkNamespace netns;
  private ApiServerProxy proxy;
  private String vethNode;

  private GoNodeDaemons(String node, Path dir, Path serviceAccount, Map<String, String> inCluster) {
    this.node = node;
    this.dir = dir;
    this.serviceAccount = serviceAccount;
    this.inCluster = inCluster;
  }

  /**
   * Applies the daemons' CRDs and identity and writes their configuration under {@code dir}; the
   * node must exist, with {@link #POD_CIDR} as its pod CIDR.
   */
  static GoNodeDaemons prepare(BenchCluster cluster, String node, Path dir) throws IOException {
    LocalControlPlane cp = cluster.controlPlane();
    cp.kubectl("apply", "-f", ToolPaths.multusDir().resolve("networks-crd.yaml").toString())
        .orThrow("kubectl apply the NetworkAttachmentDefinition CRD");
    for (Path crd : ToolPaths.whereaboutsCrds()) {
      cp.kubectl("apply", "-f", crd.toString()).orThrow("kubectl apply " + crd.getFileName());
    }
    cluster.apply(
        """
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: %1$s, namespace: kube-system}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata: {name: %1$s}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
        subjects: [{kind: ServiceAccount, name: %1$s, namespace: kube-system}]
        """
            .formatted(PEERS));
    // A kubelet annotates its Node as it registers; flanneld v0.28.0 writes into a Node's
    // annotations as it finds them and panics on a Node that has none.
    cp.kubectl(
            "annotate",
            "node",
            node,
            "--overwrite",
            "volumes.kubernetes.io/controller-managed-attach-detach=true")
        .orThrow("kubectl annotate node " + node);
    String token = cp.serviceAccountToken("kube-system", PEERS, Duration.ofHours(12));
    // A pod's ServiceAccount files, copied into each root where client-go's in-cluster config
    // reads them.
    Path sa = Files.createDirectories(dir.resolve("serviceaccount"));
    Files.writeString(sa.resolve("token"), token);
    Files.copy(
        Path.of(cp.client().getConfiguration().getCaCertFile()),
        sa.resolve("ca.crt"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(sa.resolve("namespace"), "kube-system");
    Map<String, String> env =
        Map.of(
            "KUBERNETES_SERVICE_HOST",
            "127.0.0.1",
            "KUBERNETES_SERVICE_PORT",
            Integer.toString(cp.apiServerPort()));
    GoNodeDaemons daemons = new GoNodeDaemons(node, dir, sa, env);
    try {
      daemons.flannelNode(cp, token);
    } catch (RuntimeException e) {
      daemons.close();
      throw e;
    }
    return daemons;
  }

  /** Starts the three daemons, each logging to {@code <name>.log} in {@code logDir}. */
  List<NodeDaemon> start(Path logDir) {
    List<NodeDaemon> started = new ArrayList<>();
    try {
      started.add(
          NodeDaemon.start(
              "multus-daemon (thick)",
              inOwnRoot(
                  "multus",
                  ToolPaths.multusDir().resolve("multus-daemon"),
                  multusFiles(),
                  "--config=/etc/cni/net.d/multus.d/daemon-config.json"),
              with(inCluster, "MULTUS_NODE_NAME", node),
              logDir.resolve("multus-daemon.log")));
      started.add(
          NodeDaemon.start(
              "whereabouts ip-control-loop",
              inOwnRoot("whereabouts", ToolPaths.whereaboutsControlLoop(), whereaboutsFiles()),
              with(inCluster, "NODENAME", node),
              logDir.resolve("ip-control-loop.log")));
      started.add(
          NodeDaemon.start(
              "flanneld (vxlan)",
              List.of(
                  "ip",
                  "netns",
                  "exec",
                  netns.name(),
                  ToolPaths.flanneld().toString(),
                  "--ip-masq",
                  "--kube-subnet-mgr",
                  "--kubeconfig-file=" + dir.resolve("flannel/kubeconfig"),
                  "--net-config-path=" + dir.resolve("flannel/net-conf.json"),
                  "--subnet-file=" + dir.resolve("flannel/subnet.env"),
                  "--iface=" + vethNode),
              Map.of(
                  "NODE_NAME",
                  node,
                  "POD_NAME",
                  "kube-flannel-ds-" + node,
                  "POD_NAMESPACE",
                  "kube-flannel",
                  "EVENT_QUEUE_DEPTH",
                  "5000"),
              logDir.resolve("flanneld.log")));
      return started;
    } catch (RuntimeException | Error e) {
      // An Error too (a stale build's NoSuchMethodError): no daemon outlives a failed start.
      started.forEach(NodeDaemon::close);
      throw e;
    }
  }

  /**
   * {@code chroot} into a fresh root for {@code name} holding {@code binary} as /bin/{@code name},
   * a pod's ServiceAccount files and {@code files} (path in the root → content).
   */
  private List<String> inOwnRoot(
      String name, Path binary, Map<String, String> files, String... args) {
    try {
      Path root = dir.resolve("roots/" + name);
      BenchCluster.deleteTree(root);
      for (Map.Entry<String, String> f : files.entrySet()) {
        Path file = root.resolve(f.getKey());
        Files.createDirectories(file.getParent());
        Files.writeString(file, f.getValue());
      }
      Path sa = Files.createDirectories(root.resolve("run/secrets/kubernetes.io/serviceaccount"));
      for (String f : List.of("token", "ca.crt", "namespace")) {
        Files.copy(serviceAccount.resolve(f), sa.resolve(f));
      }
      Files.createDirectories(root.resolve("var"));
      Files.createSymbolicLink(root.resolve("var/run"), Path.of("../run"));
      Files.createDirectories(root.resolve("bin"));
      Files.copy(binary, root.resolve("bin/" + name), StandardCopyOption.COPY_ATTRIBUTES);
      List<String> cmd = new ArrayList<>(List.of("chroot", root.toString(), "/bin/" + name));
      cmd.addAll(List.of(args));
      return cmd;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The thick daemon's daemon-config.json as its DaemonSet's ConfigMap has it (without chrootDir),
   * a default network in the host's CNI directory for it to wrap, as the node's primary CNI would
   * have written, and the passwd file of its image.
   */
  private static Map<String, String> multusFiles() {
    return Map.of(
        "etc/cni/net.d/multus.d/daemon-config.json",
        """
        {"cniVersion": "0.3.1", "logToStderr": true, "logLevel": "verbose",
         "cniConfigDir": "/host/etc/cni/net.d", "multusAutoconfigDir": "/host/etc/cni/net.d",
         "multusConfigFile": "auto", "socketDir": "/host/run/multus/"}
        """,
        "host/etc/cni/net.d/10-nodepays.conflist",
        """
        {"cniVersion": "1.0.0", "name": "nodepays-default", "plugins": [{"type": "bridge",
         "bridge": "npbr0", "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]]}}]}
        """
            .formatted(POD_CIDR),
        // It checks that it runs as root by looking the uid up, as its image lets it.
        "etc/passwd",
        "root:x:0:0:root:/root:/sbin/nologin\n");
  }

  /**
   * What whereabouts' DaemonSet gives ip-control-loop: the reconciler's schedule (its ConfigMap at
   * /cron-schedule) and the flat configuration its install script writes into the host's CNI
   * directory.
   */
  private static Map<String, String> whereaboutsFiles() {
    return Map.of(
        "cron-schedule/config",
        "30 4 * * *\n",
        "host/etc/cni/net.d/whereabouts.d/whereabouts.conf",
        """
        {"datastore": "kubernetes", "kubernetes": {"kubeconfig":
         "/etc/cni/net.d/whereabouts.d/whereabouts.kubeconfig"},
         "reconciler_cron_expression": "30 4 * * *"}
        """);
  }

  /**
   * flanneld's namespace, veth, proxy to the API server, kubeconfig and net-conf.json. The API
   * server's certificate names {@code kubernetes}, not the veth's address: the kubeconfig says
   * which name to verify.
   */
  private void flannelNode(LocalControlPlane cp, String token) {
    try {
      Path flannel = Files.createDirectories(dir.resolve("flannel"));
      netns = NetworkNamespace.create("npflan");
      String vethHost = TestNames.unique("nph");
      vethNode = TestNames.unique("npn");
      Commands.run(
              "ip",
              "link",
              "add",
              vethHost,
              "type",
              "veth",
              "peer",
              "name",
              vethNode,
              "netns",
              netns.name())
          .orThrow("ip link add " + vethHost);
      Commands.run("ip", "addr", "add", VETH_HOST + "/30", "dev", vethHost).orThrow("ip addr");
      Commands.run("ip", "link", "set", vethHost, "up").orThrow("ip link set up");
      netns.exec("ip", "addr", "add", VETH_NODE + "/30", "dev", vethNode);
      netns.exec("ip", "link", "set", vethNode, "up");
      proxy = ApiServerProxy.start(InetAddress.getByName(VETH_HOST), cp.apiServerPort());
      String kubeconfig =
          LocalControlPlane.kubeconfigYaml(
                  "https://" + VETH_HOST + ":" + proxy.port(),
                  cp.client().getConfiguration().getCaCertFile(),
                  Map.of("token", token))
              .replace(
                  "    certificate-authority:",
                  "    tls-server-name: kubernetes\n    certificate-authority:");
      Files.writeString(flannel.resolve("kubeconfig"), kubeconfig);
      Files.writeString(
          flannel.resolve("net-conf.json"),
          """
          {"Network": "%s", "Backend": {"Type": "vxlan"}}
          """
              .formatted(FLANNEL_NETWORK));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Map<String, String> with(Map<String, String> env, String key, String value) {
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put(key, value);
    return all;
  }

  /**
   * Ends the proxy and the namespace (the veth, flannel.1 and their routes go with it) and deletes
   * the roots and configuration files.
   */
  @Override
  public void close() {
    if (proxy != null) {
      proxy.close();
    }
    if (netns != null) {
      netns.close();
    }
    BenchCluster.deleteTree(dir);
  }
}
