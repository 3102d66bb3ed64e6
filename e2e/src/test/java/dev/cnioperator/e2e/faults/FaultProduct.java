package dev.cnioperator.e2e.faults;

import static org.awaitility.Awaitility.await;

import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.probe.ProbeNamespaces;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.CniNetworkYaml;
import dev.cnioperator.e2e.LocalProduct;
import dev.cnioperator.e2e.PodNamespaces;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.ProductProcess;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The product installed for one fault or security test class: the chart's release, Nodes carrying
 * this run's label (so networks select them and no other test's), the bridges and networks the test
 * made. Closing deletes the networks while the product still runs, then stops its processes,
 * deletes the Nodes and uninstalls the release, so the next class can install it again.
 */
public final class FaultProduct implements AutoCloseable {
  public static final Duration WAIT = Duration.ofSeconds(120);
  private static final String LABEL = "cnioperator.dev/fault-run";

  private final LocalControlPlane cp;
  private final LocalProduct product;
  private final Path work;
  private final String run;
  private final List<String> nodes = new ArrayList<>();

  private final List<String> namespaces = new ArrayList<>();

  /** kind/name of every object applied, in order. */
  private final List<String> applied = new ArrayList<>();

  private final Map<String, String> bridges = new ConcurrentHashMap<>();

  private FaultProduct(LocalControlPlane cp, LocalProduct product, Path work, String run) {
    this.cp = cp;
    this.product = product;
    this.work = work;
    this.run = run;
  }

  /** Installs the chart; the work dir is readable by all, for processes run as another user. */
  public static FaultProduct install(String prefix) {
    Prerequisites.requireRoot();
    LocalControlPlane cp = LocalControlPlane.shared();
    String run = TestNames.unique(prefix);
    try {
      Path work = Path.of("target", "faults", run).toAbsolutePath();
      Files.createDirectories(work);
      Files.setPosixFilePermissions(work, PosixFilePermissions.fromString("rwxr-xr-x"));
      return new FaultProduct(cp, LocalProduct.install(cp, work), work, run);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public LocalProduct product() {
    return product;
  }

  public LocalControlPlane controlPlane() {
    return cp;
  }

  public Path work() {
    return work;
  }

  /** A label selector (YAML flow map) that selects exactly this run's Nodes. */
  public String selector() {
    return "matchLabels: {" + LABEL + ": " + run + "}";
  }

  /**
   * Starts the operator. Every class uses the same identity, so a new operator takes the
   * leader-election Lease at once even when the last one was killed and never released it.
   */
  public ProductProcess startOperator(ProcessOptions options) {
    return product.startOperator("fault-operator", options);
  }

  /** How many times the node's agent logged writing {@code file}. */
  public static long conflistWrites(SandboxNode node, String file) {
    return node.agent()
        .output()
        .lines()
        .filter(l -> l.contains("event=conflist-written") && l.contains("file=" + file + " "))
        .count();
  }

  /**
   * What a failed test needs to say why: the networks and CniNodes of this run as the API server
   * holds them, and the tail of every process's log.
   */
  public String diagnosis() {
    StringBuilder out = new StringBuilder("===== fault product ").append(run).append('\n');
    for (String object : applied) {
      out.append(cp.kubectl("get", object, "-o", "yaml").stdout());
    }
    for (String node : nodes) {
      out.append(cp.kubectl("get", "cninode", node, "-o", "yaml").stdout());
    }
    return out.append(product.logTails(80)).toString();
  }

  /** Creates a Node labelled for this run and returns its name. */
  public String createNode(String base) {
    String name = TestNames.unique(base);
    product.createNode(name, Map.of(LABEL, run, "kubernetes.io/hostname", name));
    nodes.add(name);
    return name;
  }

  /**
   * A bridge + host-local network on this run's Nodes with its IPAM store under the work dir;
   * {@code extraBridgeKeys} are YAML lines added to the bridge plugin, {@code "key: value"} each.
   */
  public String bridgeNetwork(String name, int mtu, int checkSeconds, String... extraBridgeKeys) {
    return bridgeNetworkYaml(name, mtu, checkSeconds, extraBridgeKeys).yaml();
  }

  /** {@link #bridgeNetwork}, still open for more spec entries. */
  public CniNetworkYaml bridgeNetworkYaml(
      String name, int mtu, int checkSeconds, String... extraBridgeKeys) {
    String bridge = bridges.computeIfAbsent(name, n -> TestNames.unique("br"));
    String ranges = "[[{subnet: 10.230.%d.0/24}]]".formatted(Math.floorMod(name.hashCode(), 250));
    return CniNetworkYaml.named(name)
        .priority(50)
        .nodeSelector(selector())
        .plugin(
            Stream.of(
                    Stream.of("type: bridge", "bridge: " + bridge, "mtu: " + mtu),
                    Stream.of(extraBridgeKeys),
                    Stream.of(CniNetworkYaml.hostLocal(ranges, work.resolve("ipam"))))
                .flatMap(keys -> keys)
                .collect(Collectors.joining("\n")))
        .checkEvery(checkSeconds)
        .spec("ipamCleanup: {enabled: false}");
  }

  /** The host bridge of a network made with {@link #bridgeNetwork}. */
  public String bridgeOf(String network) {
    return bridges.get(network);
  }

  /**
   * A network of one plugin of {@code type} (a plugin binary the test provides) on this run's
   * Nodes, checked every {@code checkSeconds}.
   */
  public String singlePluginNetwork(String name, String type, int checkSeconds) {
    // The fault tests' plugins are stand-ins that attach nothing (they answer VERSION, fail or hang
    // otherwise): a probe attachment would rightly keep the network from Ready, so Ready rests on
    // STATUS and the CHECK of live attachments, as a user's network with the probe off does.
    return network(
        name,
        "- type: " + type,
        "check: {enabled: true, intervalSeconds: " + checkSeconds + "}",
        "ipamCleanup: {enabled: false}",
        "rollout: {probe: {enabled: false}}");
  }

  /**
   * A network on this run's Nodes with {@code pluginItem} (a YAML list item, its continuation lines
   * indented by two) as its only plugin and {@code specLines} added to its spec.
   */
  public String network(String name, String pluginItem, String... specLines) {
    CniNetworkYaml network =
        CniNetworkYaml.named(name)
            .nodeSelector(selector())
            .plugin(pluginItem.substring("- ".length()).replace("\n  ", "\n"));
    java.util.Arrays.stream(specLines).forEach(network::spec);
    return network.yaml();
  }

  /** Creates a namespace for Pods, deleted on close. */
  public String createNamespace(String base) {
    String name = PodNamespaces.create(cp.client(), base);
    namespaces.add(name);
    return name;
  }

  /** {@code kubectl apply} of one object's {@code yaml}; the object is deleted on close. */
  public void apply(String yaml) {
    cp.kubectlWithInput(yaml, "apply", "-f", "-").orThrow("kubectl apply");
    String kind = field(yaml, "kind: ");
    String name = field(yaml, "  name: ");
    String object = kind == null || name == null ? null : kind.toLowerCase() + "/" + name;
    if (object != null && !applied.contains(object)) {
      applied.add(object);
    }
  }

  private static String field(String yaml, String prefix) {
    return yaml.lines()
        .filter(l -> l.startsWith(prefix))
        .findFirst()
        .map(l -> l.substring(prefix.length()).strip())
        .orElse(null);
  }

  /** {@code kubectl apply} that the API server must refuse; returns what kubectl said. */
  public CommandResult applyRefused(String yaml) {
    return cp.kubectlWithInput(yaml, "apply", "-f", "-");
  }

  public void waitReady(String network) {
    ClusterNetworks.on(cp).waitReady(network);
  }

  /** Waits until the network's rollout has finished: every selected node proved its revision. */
  public void waitRolledOut(String network) {
    ClusterNetworks.on(cp).waitRolledOut(network);
  }

  public CniNetwork network(String name) {
    return cp.client().resources(CniNetwork.class).withName(name).get();
  }

  /** The sha256 of the network's current rendering, once the operator has rendered it. */
  public String renderedSha(String network) {
    return await()
        .atMost(WAIT)
        .until(
            () -> {
              CniNetwork n = network(network);
              return n == null || n.getStatus() == null || n.getStatus().getRendered() == null
                  ? null
                  : n.getStatus().getRendered().getSha256();
            },
            s -> s != null);
  }

  public Optional<CniNode> cniNode(String node) {
    return Optional.ofNullable(cp.client().resources(CniNode.class).withName(node).get());
  }

  /** What the node's agent last reported for {@code network}. */
  public Optional<NodeNetworkStatus> nodeStatus(String node, String network) {
    return cniNode(node)
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getNetworks)
        .flatMap(l -> l.stream().filter(s -> network.equals(s.getName())).findFirst());
  }

  @Override
  public void close() {
    for (String object : applied) {
      cp.kubectl("delete", object, "--ignore-not-found", "--timeout=60s");
      // A finalizer whose operator is gone must not hold the object for the next class.
      cp.kubectl("patch", object, "--type=merge", "-p", "{\"metadata\":{\"finalizers\":null}}");
    }
    product.close();
    namespaces.forEach(n -> cp.client().namespaces().withName(n).delete());
    for (String node : nodes) {
      cp.client().nodes().withName(node).delete();
      cp.client()
          .pods()
          .inNamespace(LocalProduct.NAMESPACE)
          .withName(LocalProduct.AGENT_ACCOUNT + "-" + node)
          .withGracePeriod(0)
          .delete();
    }
    bridges.values().forEach(b -> Commands.run("ip", "link", "del", b));
    // What a probe of an agent killed mid-probe left, if the test failed before it was swept.
    for (String node : nodes) {
      try {
        for (String ns : new ProbeNamespaces().owned(ProbeIdentity.forNode(node))) {
          Commands.run("ip", "netns", "delete", ns);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
