package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.e2e.LocalProduct;
import dev.cnioperator.e2e.ProductProcess;
import dev.cnioperator.testkit.LocalControlPlane;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The product a benchmark measures: a private local control plane, the chart installed with helm,
 * and the operator running as a process with the chart's ServiceAccount. Benchmark nodes carry the
 * label {@value #GROUP_LABEL} so that each benchmark's network selects exactly its own nodes.
 */
public final class BenchCluster implements AutoCloseable {
  public static final String GROUP_LABEL = "bench.cnioperator.dev/group";

  private final LocalControlPlane controlPlane;
  private final LocalProduct product;
  private final Path workDir;
  private final String name;
  private ProductProcess operator;
  private int operatorRestarts;
  private boolean closed;

  private BenchCluster(
      LocalControlPlane controlPlane, LocalProduct product, Path workDir, String name) {
    this.controlPlane = controlPlane;
    this.product = product;
    this.workDir = workDir;
    this.name = name;
  }

  /** Starts the control plane, installs the chart and starts the operator. */
  public static BenchCluster start(String name) {
    Path work = BenchReport.outputDir().resolve("work/" + name);
    deleteTree(work);
    LocalControlPlane cp = LocalControlPlane.start();
    try {
      LocalProduct product = LocalProduct.install(cp, work);
      BenchCluster cluster = new BenchCluster(cp, product, work, name);
      cluster.operator = product.startOperator(name + "-operator");
      // Ctrl-C or a kill must not leave etcd, the API server and the operator running.
      Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "bench-cluster-stop"));
      return cluster;
    } catch (RuntimeException e) {
      cp.close();
      throw e;
    }
  }

  public LocalControlPlane controlPlane() {
    return controlPlane;
  }

  public LocalProduct product() {
    return product;
  }

  public synchronized ProductProcess operator() {
    return operator;
  }

  /**
   * Starts the operator again when it has exited, as its Deployment would: an operator that cannot
   * renew its Lease in time (a machine overloaded by thousands of simulated nodes) exits.
   */
  public synchronized void restartOperatorIfExited() {
    if (!closed && !operator.isAlive()) {
      operatorRestarts++;
      System.out.println("operator exited; restarting it (" + operatorRestarts + ")");
      operator = product.startOperator(name + "-operator");
    }
  }

  /** How many times {@link #restartOperatorIfExited} restarted the operator. */
  public synchronized int operatorRestarts() {
    return operatorRestarts;
  }

  public Path workDir() {
    return workDir;
  }

  /** A Node object in benchmark group {@code group}. */
  public void createNode(String name, String group) {
    product.createNode(name, nodeLabels(name, group));
  }

  /** A Node object in benchmark group {@code group} with {@code podCidr} as its pod CIDR. */
  public void createNode(String name, String group, String podCidr) {
    product.createNode(name, nodeLabels(name, group), podCidr);
  }

  private static Map<String, String> nodeLabels(String name, String group) {
    return Map.of(GROUP_LABEL, group, "kubernetes.io/os", "linux", BRIDGE_LABEL, bridgeOf(name));
  }

  /** The label naming a node's own bridge (see {@link BenchNetwork}). */
  public static final String BRIDGE_LABEL = "bench.cnioperator.dev/bridge";

  /** The bridge of one simulated node: a valid interface name (at most 15 characters). */
  public static String bridgeOf(String node) {
    return "cb" + Integer.toHexString(node.hashCode());
  }

  /** Deletes the bridges the probes of nodes {@code <group>-0 .. <group>-(count-1)} made. */
  public static void deleteBridges(String group, int count) {
    for (int i = 0; i < count; i++) {
      String bridge = bridgeOf(group + "-" + i);
      if (Files.exists(Path.of("/sys/class/net", bridge))) {
        dev.cnioperator.testkit.Commands.run("ip", "link", "del", bridge);
      }
    }
  }

  /**
   * Deletes what the agents' probes and CHECK of the {@link BenchNetwork#withProductDefaults}
   * network {@code network} leave on the host: host-local's directory for it in {@code
   * /var/lib/cni/networks} (with the reservations of an attachment a run cut short) and the shared
   * bridge {@link BenchNetwork#BRIDGE} with CHECK's gateway address.
   */
  public static void deleteSharedBridgeAndReservations(String network) {
    deleteTree(
        dev.cnioperator.cni.cache.ResultCache.DEFAULT_DIR.resolve("networks").resolve(network));
    if (Files.exists(Path.of("/sys/class/net", BenchNetwork.BRIDGE))) {
      dev.cnioperator.testkit.Commands.run("ip", "link", "del", BenchNetwork.BRIDGE);
    }
  }

  /**
   * A kubeconfig in {@code root} with a token of the chart's agent ServiceAccount bound to a Pod on
   * {@code node}, as the DaemonSet's pod there would have.
   */
  public Path agentKubeconfig(String node, Path root) {
    try {
      Files.createDirectories(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return controlPlane.writeKubeconfigForToken(
        product.agentToken(node), root.resolve("agent.kubeconfig"));
  }

  /** Waits until the operator has put a network into {@code node}'s CniNode spec; its first. */
  public NodeNetwork awaitNodeNetwork(String node) throws InterruptedException {
    for (int i = 0; i < 600; i++) {
      CniNode cniNode = product.client().resources(CniNode.class).withName(node).get();
      if (cniNode != null
          && cniNode.getSpec() != null
          && cniNode.getSpec().getNetworks() != null
          && !cniNode.getSpec().getNetworks().isEmpty()) {
        return cniNode.getSpec().getNetworks().get(0);
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the operator wrote no CniNode spec for " + node + " in 60 s");
  }

  /** {@code kubectl apply -f -} of {@code yaml}; throws when kubectl fails. */
  public void apply(String yaml) {
    controlPlane.kubectlWithInput(yaml, "apply", "-f", "-").orThrow("kubectl apply");
  }

  /**
   * Applies {@code net} and waits until every one of {@code agents} holds its conflist and the
   * network is Ready.
   */
  void applyAndAwaitReady(InProcessAgents agents, BenchNetwork net) throws InterruptedException {
    apply(net.yaml());
    awaitReady(agents.confDirs(), net);
  }

  /** Waits until every one of {@code confDirs} holds {@code net}'s conflist and it is Ready. */
  void awaitReady(List<Path> confDirs, BenchNetwork net) throws InterruptedException {
    ConflistWait.until(confDirs, net.fileName(), net.marker(), Duration.ofMinutes(3));
    controlPlane
        .kubectl("wait", "--for=condition=Ready", "cninetwork/" + net.name(), "--timeout=180s")
        .orThrow("kubectl wait Ready");
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    product.close();
    controlPlane.close();
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
