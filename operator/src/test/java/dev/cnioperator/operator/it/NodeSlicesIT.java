package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * spec.nodeSlices against a real API server: the operator cuts one subnet into a slice per node,
 * records it in status.slices before any node is rendered with it, keeps it across a restart, hands
 * a slice to no second node while the first may still hold the network, and says so when the subnet
 * has no slice left. Node agents are simulated by the test writing CniNode status.
 */
class NodeSlicesIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SLICED = "cnioperator.dev/slices-test";
  private static final String EXHAUSTED =
      "has no slice: no free /26 slice left in 10.200.40.0/25: all 2 are held by other nodes";

  private ClusterFixture cluster;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  @Test
  void nodesGetDisjointSlicesKeptAcrossARestartAndFreedOnlyOnceTheirNodeLetsGo() {
    Map<String, String> selected = Map.of(ClusterFixture.POOL, cluster.pool, SLICED, "on");
    String a = cluster.node("slc", selected);
    String b = cluster.node("slc", selected);
    String net = "slices-" + cluster.pool;
    cluster
        .apply(
            net,
            "  nodeSelector: {matchLabels: {\""
                + ClusterFixture.POOL
                + "\": "
                + cluster.pool
                + ", \""
                + SLICED
                + "\": \"on\"}}\n"
                + "  nodeSlices: {subnet: 10.200.40.0/25, prefixLength: 26}\n"
                + "  plugins:\n"
                + "  - type: bridge\n"
                + "    bridge: ct-slc0\n"
                + "    ipam:\n"
                + "      type: host-local\n"
                + "      ranges: [[{subnet: 10.200.40.0/25, rangeStart: \"$(node.slice.rangeStart)\","
                + " rangeEnd: \"$(node.slice.rangeEnd)\"}]]\n")
        .orThrow("apply");

    // Two nodes, two slices: each node's content holds its own, and status.slices says which.
    await("both nodes rendered with a slice")
        .atMost(ClusterFixture.WAIT)
        .until(() -> range(a, net).isPresent() && range(b, net).isPresent());
    Map<String, String> slices = slices(net);
    assertThat(slices.keySet()).containsExactlyInAnyOrder(a, b);
    assertThat(Set.copyOf(slices.values()))
        .containsExactlyInAnyOrder("10.200.40.0/26", "10.200.40.64/26");
    for (String node : List.of(a, b)) {
      assertThat(range(node, net))
          .as(node + " hands out its own slice only")
          .contains(hostLocalRange(slices.get(node)));
    }

    // A third node: the subnet has no slice left for it, and its CniNode and Ready say so.
    String c = cluster.node("slc", selected);
    await("the third node waits for a slice")
        .atMost(ClusterFixture.WAIT)
        .until(() -> unavailable(c, net).orElse("").equals("node " + c + " " + EXHAUSTED));
    cluster.agentReportsApplied(a);
    cluster.agentReportsApplied(b);
    Condition ready = cluster.awaitCondition(net, "Ready", "False");
    await("Ready names the node without a slice")
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                cluster
                    .condition(net, "Ready")
                    .map(r -> r.getMessage().contains("node " + c + " " + EXHAUSTED))
                    .orElse(false));
    assertThat(cluster.condition(net, "Ready").orElseThrow().getReason())
        .as(ready.getMessage())
        .isEqualTo("WaitingForNodeValues");

    // A restart reads the slices back from status; a relabel that keeps b selected changes nothing.
    Long generationA = cluster.cniNode(a).getMetadata().getGeneration();
    Long generationB = cluster.cniNode(b).getMetadata().getGeneration();
    TestOperator operator = TestOperator.shared();
    operator.restart();
    await().atMost(ClusterFixture.WAIT).until(operator::ready);
    cluster.relabel(b, Map.of(ClusterFixture.POOL, cluster.pool, SLICED, "on", "rack", "r2"));
    await("the slices stay as they are")
        .during(Duration.ofSeconds(5))
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                slices(net).equals(slices)
                    && generationA.equals(cluster.cniNode(a).getMetadata().getGeneration())
                    && generationB.equals(cluster.cniNode(b).getMetadata().getGeneration()));

    // a stops matching. Its agent still reports the network applied: pods there may still hold
    // addresses of its slice, so c gets nothing yet.
    cluster.relabel(a, Map.of(ClusterFixture.POOL, cluster.pool));
    await("the network is taken off a")
        .atMost(ClusterFixture.WAIT)
        .until(() -> !cluster.networksOn(a).contains(net));
    await("a keeps its slice while its agent has not removed the network")
        .during(Duration.ofSeconds(4))
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                slices(net).equals(slices)
                    && unavailable(c, net).orElse("").equals("node " + c + " " + EXHAUSTED));

    // a's agent removed the file: the slice is free, and c gets it.
    cluster.agentReportsRemoved(a, net);
    await("c gets the slice a held")
        .atMost(ClusterFixture.WAIT)
        .until(() -> range(c, net).isPresent());
    assertThat(slices(net))
        .containsExactlyInAnyOrderEntriesOf(Map.of(b, slices.get(b), c, slices.get(a)));
    assertThat(range(c, net)).contains(hostLocalRange(slices.get(a)));
  }

  /** "rangeStart-rangeEnd" host-local hands out of {@code slice} of 10.200.40.0/25. */
  private static String hostLocalRange(String slice) {
    return slice.equals("10.200.40.0/26")
        ? "10.200.40.1-10.200.40.63"
        : "10.200.40.64-10.200.40.126";
  }

  private Map<String, String> slices(String network) {
    CniNetwork n = cluster.network(network);
    List<NodeSlice> slices =
        n == null || n.getStatus() == null || n.getStatus().getSlices() == null
            ? List.of()
            : n.getStatus().getSlices();
    return slices.stream().collect(Collectors.toMap(NodeSlice::getNode, NodeSlice::getSlice));
  }

  private Optional<NodeNetwork> entry(String node, String network) {
    return cluster.specOf(node).stream().filter(e -> network.equals(e.getName())).findFirst();
  }

  private Optional<String> unavailable(String node, String network) {
    return entry(node, network).map(NodeNetwork::getUnavailable);
  }

  /** "rangeStart-rangeEnd" of the node's rendered host-local range, when it has content. */
  private Optional<String> range(String node, String network) {
    return entry(node, network)
        .map(NodeNetwork::getContent)
        .map(
            content -> {
              try {
                JsonNode r = JSON.readTree(content).at("/plugins/0/ipam/ranges/0/0");
                return r.get("rangeStart").textValue() + "-" + r.get("rangeEnd").textValue();
              } catch (Exception e) {
                throw new IllegalStateException(content, e);
              }
            });
  }
}
