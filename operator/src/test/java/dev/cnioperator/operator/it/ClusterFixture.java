package dev.cnioperator.operator.it;

import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.operator.OperatorClients;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one test makes in the cluster (Nodes in a pool of its own, CniNetworks), the simulated node
 * agents, and the clean-up of all of it.
 */
final class ClusterFixture implements AutoCloseable {
  static final String POOL = "cnioperator.dev/test-pool";
  static final Duration WAIT = Duration.ofSeconds(60);

  final LocalControlPlane controlPlane;
  final KubernetesClient client;
  final String pool = TestNames.unique("pool");
  private final List<String> nodes = new ArrayList<>();
  private final List<String> networks = new ArrayList<>();

  ClusterFixture() {
    controlPlane = TestOperator.shared().controlPlane();
    // Reads what the operator reads, however deep (see OperatorClients).
    client = OperatorClients.create(controlPlane.client().getConfiguration());
  }

  /** A Node in this test's pool (no kubelet: the API object is all the operator sees). */
  String node(String base) {
    return node(base, Map.of(POOL, pool));
  }

  String node(String base, Map<String, String> labels) {
    String name = TestNames.unique(base);
    String cidr = TestNames.podCidr();
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withPodCIDR(cidr)
                .withPodCIDRs(cidr)
                .endSpec()
                .build())
        .create();
    nodes.add(name);
    return name;
  }

  void relabel(String node, Map<String, String> labels) {
    client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getMetadata().setLabels(labels);
              return n;
            });
  }

  /** Applies a CniNetwork with kubectl, as a person would. */
  CommandResult apply(String name, String specYaml) {
    networks.add(name);
    return controlPlane.kubectlWithInput(
        "apiVersion: cnioperator.dev/v1alpha1\nkind: CniNetwork\nmetadata:\n  name: "
            + name
            + "\nspec:\n"
            + specYaml,
        "apply",
        "-f",
        "-");
  }

  /** Spec YAML selecting this test's pool with one bridge plugin on {@code bridge}. */
  String bridgeSpec(String bridge, String subnet) {
    return "  nodeSelector: {matchLabels: {\""
        + POOL
        + "\": "
        + pool
        + "}}\n  plugins:\n  - type: bridge\n    bridge: "
        + bridge
        + "\n    ipam: {type: host-local, subnet: \""
        + subnet
        + "\"}\n";
  }

  /**
   * Makes a CniNetwork created another way (kubectl apply -f file) part of this test's clean-up.
   */
  void adopt(String network) {
    networks.add(network);
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

  Condition awaitCondition(String network, String type, String status) {
    await("condition " + type + "=" + status + " on " + network)
        .atMost(WAIT)
        .until(() -> condition(network, type).map(c -> status.equals(c.getStatus())).orElse(false));
    return condition(network, type).orElseThrow();
  }

  /**
   * The Events about {@code network} (all, or of {@code type} "Warning" or "Normal"), one "REASON
   * MESSAGE" line each.
   */
  String events(String network, String type) {
    return controlPlane
        .kubectl(
            "get",
            "events",
            "-n",
            "default",
            "--field-selector",
            "involvedObject.name=" + network + (type == null ? "" : ",type=" + type),
            "-o",
            "custom-columns=REASON:.reason,MESSAGE:.message")
        .orThrow("get events")
        .stdout();
  }

  CniNode cniNode(String node) {
    return client.resources(CniNode.class).withName(node).get();
  }

  /** The networks a node's CniNode spec lists (empty when it has none or does not exist). */
  List<NodeNetwork> specOf(String node) {
    CniNode n = cniNode(node);
    if (n == null || n.getSpec() == null || n.getSpec().getNetworks() == null) {
      return List.of();
    }
    return n.getSpec().getNetworks();
  }

  List<String> networksOn(String node) {
    return specOf(node).stream().map(NodeNetwork::getName).toList();
  }

  /**
   * Plays the node's agent: reports every listed network applied (and any given failures), and its
   * content proven where the spec asks for proof.
   */
  void agentReportsApplied(String node, FailingAttachment... failing) {
    agentReports(node, null, failing);
  }

  /**
   * As {@link #agentReportsApplied}, with the probe of {@code network} failed with {@code error}.
   */
  void agentReportsProbeFailed(String node, String network, String error) {
    agentReports(node, network, new FailingAttachment[0], error);
  }

  private void agentReports(
      String node, String failedNetwork, FailingAttachment[] failing, String... probeError) {
    List<NodeNetworkStatus> reports = new ArrayList<>();
    for (NodeNetwork n : specOf(node)) {
      boolean failed = n.getName().equals(failedNetwork);
      reports.add(
          new NodeNetworkStatus()
              .setName(n.getName())
              .setAppliedSha256(n.getSha256())
              .setState(NetworkState.Applied)
              .setAttachments(
                  new AttachmentSummary()
                      .setTotal(failing.length)
                      .setHealthy(0)
                      .setFailing(List.of(failing)))
              .setProbe(
                  n.getProbe() == null || n.getSha256() == null
                      ? null
                      : new ProbeReport()
                          .setSha256(n.getSha256())
                          .setResult(failed ? ProbeResult.Failed : ProbeResult.Passed)
                          .setMessage(failed ? probeError[0] : null)
                          .setTime("2026-11-23T10:00:00Z")));
    }
    writeStatus(node, new CniNodeStatus().setNetworks(reports));
  }

  /** The nodes among {@code nodes} whose CniNode spec holds {@code revision} of {@code network}. */
  List<String> holding(List<String> nodes, String network, String revision) {
    return nodes.stream()
        .filter(
            n ->
                specOf(n).stream()
                    .anyMatch(e -> network.equals(e.getName()) && revision.equals(e.getRevision())))
        .toList();
  }

  /** Plays the node's agent after the operator took {@code network} off the node. */
  void agentReportsRemoved(String node, String network) {
    writeStatus(
        node,
        new CniNodeStatus()
            .setNetworks(
                List.of(new NodeNetworkStatus().setName(network).setState(NetworkState.Removed))));
  }

  private void writeStatus(String node, CniNodeStatus status) {
    CniNode current = cniNode(node);
    current.setStatus(status);
    client.resource(current).updateStatus();
  }

  @Override
  public void close() {
    for (String n : networks) {
      client.resources(CniNetwork.class).withName(n).delete();
    }
    // The agents (simulated) let go of everything, so the finalizers need not time out.
    for (String n : nodes) {
      await("CniNode " + n + " emptied").atMost(WAIT).until(() -> specOf(n).isEmpty());
      if (cniNode(n) != null && cniNode(n).getStatus() != null) {
        writeStatus(n, new CniNodeStatus().setNetworks(List.of()));
      }
    }
    for (String n : networks) {
      await("deletion of " + n).atMost(WAIT).until(() -> network(n) == null);
    }
    for (String n : nodes) {
      client.nodes().withName(n).delete();
    }
    client.close();
  }
}
