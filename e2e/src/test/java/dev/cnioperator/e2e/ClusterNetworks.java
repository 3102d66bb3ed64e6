package dev.cnioperator.e2e;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * CniNetworks as a cluster user handles them (kubectl apply, wait, delete) and the reads a test
 * makes of their status and of the CniNodes, on any cluster (the local control plane, k3s): the
 * client and kubectl are given.
 */
public final class ClusterNetworks {
  /** kubectl of the cluster under test, killed after {@code limit}; {@code stdin} may be null. */
  @FunctionalInterface
  public interface Kubectl {
    CommandResult run(Duration limit, String stdin, String... args);
  }

  /**
   * How long a network may take to meet a condition ({@code Ready}, {@code RolledOut}): the one
   * timeout of every such wait of the tests, on any cluster, kubelet nodes and a loaded machine
   * included.
   */
  public static final Duration CONDITION_TIMEOUT = Duration.ofMinutes(3);

  /** How long any other kubectl command may take. */
  private static final Duration COMMAND_LIMIT = Duration.ofMinutes(2);

  /** The CHECK interval of the kubelet-node scenarios' networks: short, to show within a test. */
  private static final String CHECK_EVERY_5S = "check: {intervalSeconds: 5}";

  private final KubernetesClient client;
  private final Kubectl kubectl;

  public ClusterNetworks(KubernetesClient client, Kubectl kubectl) {
    this.client = client;
    this.kubectl = kubectl;
  }

  /** The networks of the local control plane {@code cp}, through its admin client and kubectl. */
  public static ClusterNetworks on(LocalControlPlane cp) {
    return new ClusterNetworks(cp.client(), cp::kubectlWithInput);
  }

  /**
   * A bridge + host-local network, with {@code tuning} chained so that a plugin only the agent
   * image bundles is needed on the node.
   *
   * @param subnet the third octet of its 10.200.x.0/24 range
   */
  public static String bridgeNetwork(
      String name, int priority, String selector, String bridge, int subnet, int checkSeconds) {
    return CniNetworkYaml.named(name)
        .priority(priority)
        .nodeSelector(selector)
        .plugin(
            "type: bridge\nbridge: %s\nmtu: 1400\n%s"
                .formatted(
                    bridge,
                    CniNetworkYaml.hostLocal(
                        "[[{subnet: 10.200.%d.0/24}]]".formatted(subnet), null)))
        .plugin("type: tuning")
        .checkEvery(checkSeconds)
        .spec("ipamCleanup: {enabled: true, gracePeriodSeconds: 3600, dryRun: false}")
        .yaml();
  }

  /**
   * A network of one bridge that is its pods' gateway, host-local on {@code subnet}, CHECKed every
   * 5 s; {@code extraBridgeField} (a YAML line, or empty) is added to the bridge, e.g. {@code mtu:
   * 70000} for an edit that fails on every node.
   */
  public static String gatewayBridgeNetwork(
      String name, String bridge, String subnet, String extraBridgeField) {
    return CniNetworkYaml.named(name)
        .priority(50)
        .plugin(
            gatewayBridge(
                bridge, extraBridgeField, "ipam: {type: host-local, subnet: " + subnet + "}"))
        .spec(CHECK_EVERY_5S)
        .yaml();
  }

  /**
   * A macvlan network on {@code master}, an interface the test has not made: not Ready, naming the
   * interface, until it exists on the node.
   */
  public static String macvlanNetwork(String name, String master, String subnet) {
    return CniNetworkYaml.named(name)
        .priority(60)
        .plugin(
            lines(
                "type: macvlan",
                "master: " + master,
                "ipam: {type: host-local, subnet: " + subnet + "}"))
        .spec(CHECK_EVERY_5S)
        .yaml();
  }

  /**
   * The pod network of the kubelet-node scenarios: a bridge on each node acting as its pods'
   * gateway, host-local on the node's own pod CIDR, with a short CHECK interval (5 s) and cleanup
   * grace period (30 s) so that both show within a test.
   */
  public static String podNetwork(String name, String bridge) {
    return podNetwork(name, bridge, "ipamCleanup: {gracePeriodSeconds: 30}", "");
  }

  /**
   * {@link #podNetwork(String, String)} with {@code specLine} (a YAML line of the spec, e.g. {@code
   * cniVersions: [...]}) in place of the short cleanup grace period, and {@code extraBridgeField}
   * (a YAML line, or empty) added to the bridge.
   */
  public static String podNetwork(
      String name, String bridge, String specLine, String extraBridgeField) {
    CniNetworkYaml network =
        CniNetworkYaml.named(name)
            .priority(10)
            .plugin(
                gatewayBridge(
                    bridge,
                    extraBridgeField,
                    "ipam:\n  type: host-local\n  ranges: \"$(node.hostLocalRanges)\""))
            .spec(CHECK_EVERY_5S);
    if (!specLine.isBlank()) {
      network.spec(specLine);
    }
    return network.yaml();
  }

  /**
   * A bridge plugin that is its pods' gateway, with {@code extraField} (or none) and {@code ipam}.
   */
  private static String gatewayBridge(String bridge, String extraField, String ipam) {
    return lines("type: bridge", "bridge: " + bridge, "isGateway: true", extraField, ipam);
  }

  /** YAML lines joined, the empty ones left out. */
  private static String lines(String... lines) {
    return java.util.Arrays.stream(lines)
        .filter(l -> !l.isBlank())
        .collect(java.util.stream.Collectors.joining("\n"));
  }

  public void apply(String yaml) {
    tryApply(yaml).orThrow("kubectl apply");
  }

  /** kubectl apply that may be refused; the caller reads the answer. */
  public CommandResult tryApply(String yaml) {
    return kubectl.run(COMMAND_LIMIT, yaml, "apply", "-f", "-");
  }

  /** Waits until CniNetwork {@code name} is Ready. */
  public void waitReady(String name) {
    waitCondition(name, "Ready");
  }

  /** Waits until the rollout of CniNetwork {@code name} has finished on every selected node. */
  public void waitRolledOut(String name) {
    waitCondition(name, "RolledOut");
  }

  /**
   * {@code kubectl wait --for=condition=<condition>} on CniNetwork {@code name}, for {@link
   * #CONDITION_TIMEOUT}; fails naming both, with what {@code kubectl describe} shows of it then.
   */
  public void waitCondition(String name, String condition) {
    CommandResult wait =
        kubectl.run(
            CONDITION_TIMEOUT.plusSeconds(30),
            null,
            "wait",
            "--for=condition=" + condition,
            "cninetwork/" + name,
            "--timeout=" + CONDITION_TIMEOUT.toSeconds() + "s");
    if (!wait.ok()) {
      wait.orThrow("kubectl wait " + condition + " " + name + ": " + describe(name));
    }
  }

  /** {@code kubectl describe cninetwork}, for failure messages. */
  public String describe(String name) {
    return kubectl.run(COMMAND_LIMIT, null, "describe", "cninetwork", name).stdout();
  }

  public void delete(String name) {
    tryDelete(name).orThrow("kubectl delete");
  }

  /** kubectl delete that may fail (say, a finalizer outlasting the wait); the caller reads it. */
  public CommandResult tryDelete(String name) {
    return kubectl.run(
        COMMAND_LIMIT.plusSeconds(10), null, "delete", "cninetwork", name, "--timeout=120s");
  }

  public CniNetwork network(String name) {
    return client.resources(CniNetwork.class).withName(name).get();
  }

  public Optional<Condition> condition(String network, String type) {
    CniNetwork n = network(network);
    if (n == null || n.getStatus() == null || n.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return n.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  public Optional<CniNode> cniNode(String node) {
    return Optional.ofNullable(client.resources(CniNode.class).withName(node).get());
  }

  /** The networks the operator told {@code node} to hold. */
  public List<String> networksOf(String node) {
    return cniNode(node)
        .map(CniNode::getSpec)
        .map(s -> s.getNetworks() == null ? List.<NodeNetwork>of() : s.getNetworks())
        .map(l -> l.stream().map(NodeNetwork::getName).toList())
        .orElse(List.of());
  }

  public Optional<NodeNetworkStatus> nodeStatus(String node, String network) {
    return cniNode(node)
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getNetworks)
        .flatMap(l -> l.stream().filter(s -> network.equals(s.getName())).findFirst());
  }
}
