package dev.cnioperator.e2e.k3s;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.CommandResult;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Optional;

/**
 * CniNetworks as a cluster user handles them (kubectl apply, wait, delete) and the reads a test
 * makes of their status and of the CniNodes, on any cluster: the client and kubectl are given.
 */
final class ClusterNetworks {
  /** kubectl of the cluster under test; {@code stdin} may be null. */
  @FunctionalInterface
  interface Kubectl {
    CommandResult run(String stdin, String... args);
  }

  private final KubernetesClient client;
  private final Kubectl kubectl;

  ClusterNetworks(KubernetesClient client, Kubectl kubectl) {
    this.client = client;
    this.kubectl = kubectl;
  }

  /**
   * A bridge + host-local network, with {@code tuning} chained so that a plugin only the agent
   * image bundles is needed on the node.
   *
   * @param subnet the third octet of its 10.200.x.0/24 range
   */
  static String bridgeNetwork(
      String name, int priority, String selector, String bridge, int subnet, int checkSeconds) {
    return """
        apiVersion: cnioperator.dev/v1alpha1
        kind: CniNetwork
        metadata:
          name: %1$s
        spec:
          cniVersion: "1.0.0"
          priority: %2$d
          nodeSelector:
            %3$s
          plugins:
          - type: bridge
            bridge: %4$s
            mtu: 1400
            ipam:
              type: host-local
              ranges: [[{subnet: 10.200.%5$d.0/24}]]
          - type: tuning
          check: {enabled: true, intervalSeconds: %6$d}
          ipamCleanup: {enabled: true, gracePeriodSeconds: 3600, dryRun: false}
        """
        .formatted(name, priority, selector, bridge, subnet, checkSeconds);
  }

  void apply(String yaml) {
    tryApply(yaml).orThrow("kubectl apply");
  }

  /** kubectl apply that may be refused; the caller reads the answer. */
  CommandResult tryApply(String yaml) {
    return kubectl.run(yaml, "apply", "-f", "-");
  }

  void waitReady(String name) {
    kubectl
        .run(null, "wait", "--for=condition=Ready", "cninetwork/" + name, "--timeout=180s")
        .orThrow(
            "kubectl wait Ready "
                + name
                + ": "
                + kubectl.run(null, "describe", "cninetwork", name).stdout());
  }

  void delete(String name) {
    kubectl.run(null, "delete", "cninetwork", name, "--timeout=120s").orThrow("kubectl delete");
  }

  CniNetwork network(String name) {
    return client.resources(CniNetwork.class).withName(name).get();
  }

  Optional<Condition> condition(String network, String type) {
    CniNetwork n = network(network);
    if (n == null || n.getStatus() == null || n.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return n.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  Optional<CniNode> cniNode(String node) {
    return Optional.ofNullable(client.resources(CniNode.class).withName(node).get());
  }

  /** The networks the operator told {@code node} to hold. */
  List<String> networksOf(String node) {
    return cniNode(node)
        .map(CniNode::getSpec)
        .map(s -> s.getNetworks() == null ? List.<NodeNetwork>of() : s.getNetworks())
        .map(l -> l.stream().map(NodeNetwork::getName).toList())
        .orElse(List.of());
  }

  Optional<NodeNetworkStatus> nodeStatus(String node, String network) {
    return cniNode(node)
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getNetworks)
        .flatMap(l -> l.stream().filter(s -> network.equals(s.getName())).findFirst());
  }
}
