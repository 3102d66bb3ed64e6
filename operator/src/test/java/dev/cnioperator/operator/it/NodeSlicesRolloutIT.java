package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An edit of spec.nodeSlices alone on the real API server: it is a new revision, goes out in
 * batches with every node not yet admitted keeping its old slice, and is rolled back when its
 * canary fails. Node agents are simulated by the test writing CniNode status.
 */
class NodeSlicesRolloutIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ERROR =
      "ADD: CNI error 999: failed to set up the bridge: the slice's range is not usable";

  private ClusterFixture cluster;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private String spec(String bridge, String subnet, int prefixLength, String rollout) {
    return "  nodeSelector: {matchLabels: {\""
        + ClusterFixture.POOL
        + "\": "
        + cluster.pool
        + "}}\n"
        + "  nodeSlices: {subnet: "
        + subnet
        + ", prefixLength: "
        + prefixLength
        + "}\n"
        + rollout
        + "  plugins:\n"
        + "  - type: bridge\n"
        + "    bridge: "
        + bridge
        + "\n"
        + "    ipam:\n"
        + "      type: host-local\n"
        + "      ranges: [[{subnet: \"$(node.slice)\"}]]\n";
  }

  /**
   * {@code count} nodes holding network {@code name} cut from {@code subnet}, proven everywhere.
   */
  private List<String> rolledOut(String name, int count, String spec) {
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      nodes.add(cluster.node("sro" + i));
    }
    nodes.sort(String::compareTo);
    cluster.apply(name, spec).orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> nodes.stream().allMatch(n -> slice(n, name).isPresent()));
    nodes.forEach(cluster::agentReportsApplied);
    cluster.awaitCondition(name, "RolledOut", "True");
    return nodes;
  }

  private String edit(String name, String spec) {
    String before = revision(name);
    cluster.apply(name, spec).orThrow("edit");
    await().atMost(ClusterFixture.WAIT).until(() -> !revision(name).equals(before));
    return revision(name);
  }

  private String revision(String name) {
    return cluster.network(name).getStatus().getRendered().getSha256();
  }

  private RolloutStatus rollout(String name) {
    return cluster.network(name).getStatus().getRollout();
  }

  /** The slice in the node's rendering of the network, when it has content. */
  private Optional<String> slice(String node, String network) {
    return cluster.specOf(node).stream()
        .filter(e -> network.equals(e.getName()))
        .findFirst()
        .map(NodeNetwork::getContent)
        .map(
            content -> {
              try {
                JsonNode r = JSON.readTree(content).at("/plugins/0/ipam/ranges/0/0/subnet");
                return r.textValue();
              } catch (Exception e) {
                throw new IllegalStateException(content, e);
              }
            });
  }

  private List<String> slicesInStatus(String network) {
    return cluster.network(network).getStatus().getSlices().stream()
        .map(NodeSlice::getSlice)
        .sorted()
        .toList();
  }

  @Test
  void aNodeSlicesOnlyEditGoesOutInBatchesAndNodesNotYetAdmittedKeepTheirOldSlice() {
    String name = "sro-good-" + cluster.pool;
    String rollout = "  rollout: {maxNodes: \"2\"}\n";
    List<String> nodes = rolledOut(name, 3, spec("ct-srog", "10.200.50.0/24", 26, rollout));
    String old = revision(name);

    String revision = edit(name, spec("ct-srog", "10.200.51.0/24", 26, rollout));

    assertThat(revision).isNotEqualTo(old);
    Set<String> proven = new HashSet<>();
    List<List<String>> batches = new ArrayList<>();
    while (!proven.containsAll(nodes)) {
      List<String> batch =
          await()
              .atMost(ClusterFixture.WAIT)
              .until(
                  () -> rollout(name).getBatch(),
                  b -> b != null && !b.isEmpty() && !proven.containsAll(b));
      batches.add(batch);
      // Every admitted node renders the new subnet; every other node keeps its slice of the old.
      await()
          .atMost(ClusterFixture.WAIT)
          .until(() -> cluster.holding(nodes, name, revision).containsAll(batch));
      for (String n : nodes) {
        String prefix =
            cluster.holding(nodes, name, revision).contains(n) ? "10.200.51." : "10.200.50.";
        assertThat(slice(n, name))
            .as("slice of %s", n)
            .hasValueSatisfying(s -> assertThat(s).startsWith(prefix));
      }
      assertThat(cluster.holding(nodes, name, revision))
          .as("no node beyond the batches admitted so far")
          .hasSizeLessThanOrEqualTo(proven.size() + batch.size());
      batch.forEach(cluster::agentReportsApplied);
      proven.addAll(batch);
    }

    assertThat(batches).extracting(List::size).containsExactly(1, 2);
    cluster.awaitCondition(name, "RolledOut", "True");
    assertThat(rollout(name).getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(cluster.holding(nodes, name, revision)).containsExactlyElementsOf(nodes);
    await("the old subnet's slices are freed once every node holds the new one")
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                slicesInStatus(name)
                    .equals(List.of("10.200.51.0/26", "10.200.51.128/26", "10.200.51.64/26")));
  }

  @Test
  void aNodeSlicesOnlyEditTheCanaryFailsIsRolledBackToTheOldSlices() {
    String name = "sro-bad-" + cluster.pool;
    List<String> nodes = rolledOut(name, 3, spec("ct-srob", "10.200.52.0/24", 26, ""));
    String good = revision(name);
    List<Optional<String>> before = nodes.stream().map(n -> slice(n, name)).toList();

    String bad = edit(name, spec("ct-srob", "10.200.52.0/24", 27, ""));
    String canary =
        await()
            .atMost(ClusterFixture.WAIT)
            .until(() -> cluster.holding(nodes, name, bad), h -> h.size() == 1)
            .get(0);
    assertThat(slice(canary, name)).hasValueSatisfying(s -> assertThat(s).endsWith("/27"));
    cluster.agentReportsProbeFailed(canary, name, ERROR);

    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> "RolledBack".equals(cluster.condition(name, "RolledOut").get().getReason()));
    assertThat(rollout(name).getPhase()).isEqualTo(RolloutPhase.RolledBack);
    assertThat(rollout(name).getFailure().getNode()).isEqualTo(canary);
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.holding(nodes, name, good).size() == nodes.size());
    assertThat(nodes.stream().map(n -> slice(n, name)).toList())
        .as("every node renders its old slice again")
        .isEqualTo(before);
    await("the old slices stay listed while nodes hold the stable revision")
        .during(Duration.ofSeconds(2))
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                slicesInStatus(name)
                    .containsAll(List.of("10.200.52.0/26", "10.200.52.64/26", "10.200.52.128/26")));
  }
}
