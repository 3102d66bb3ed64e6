package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.KnownFields;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.NewerCrd;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Issue 52 with a test build: the CniNetwork CRD of a newer release (a property at the top of spec
 * and one in spec.rollout), left in place after a rollback, lets a network carry fields this
 * operator does not know. It refuses that generation naming them, and no CniNode changes, not even
 * by the settings of the same edit it does know; without them the edit goes through.
 */
class UnknownFieldsIT {
  private static final String CRD = "cninetworks.cnioperator.dev";

  /** How long every CniNode must stay as it was: many reconciles of the network and the nodes. */
  private static final Duration HOLD = Duration.ofSeconds(8);

  private static final String NEWER_EDIT =
      "{\"spec\":{\"futureField\":\"from-a-newer-release\",\"rollout\":{\"surge\":\"1\"},"
          + "\"check\":{\"intervalSeconds\":15}}}";

  /** What the operator wrote to a CniNode: any write changes its resourceVersion. */
  private record Held(String resourceVersion, Long generation, String spec) {
    static Held of(CniNode node) {
      return new Held(
          node.getMetadata().getResourceVersion(),
          node.getMetadata().getGeneration(),
          Serialization.asJson(node.getSpec()));
    }
  }

  @Test
  void anEditWithFieldsThisOperatorDoesNotKnowIsRefusedAndNoNodeChanges() {
    try (ClusterFixture cluster = new ClusterFixture();
        NewerCrd newer =
            NewerCrd.install(cluster.controlPlane, CRD, "spec.futureField", "spec.rollout.surge")) {
      awaitOperatorStartedOnTheNewerSchema(cluster);
      List<String> nodes = List.of(cluster.node("unk"), cluster.node("unk"));
      String name = "unk-" + cluster.pool;
      cluster
          .apply(
              name,
              cluster.bridgeSpec("ct-unk0", "10.200.52.0/24")
                  + "  check: {enabled: true, intervalSeconds: 60}\n")
          .orThrow("apply");
      await()
          .atMost(ClusterFixture.WAIT)
          .until(() -> nodes.stream().allMatch(n -> cluster.networksOn(n).contains(name)));
      nodes.forEach(cluster::agentReportsApplied);
      cluster.awaitCondition(name, "Ready", "True");
      String revision = cluster.network(name).getStatus().getRendered().getSha256();
      Map<String, Held> before = held(cluster, nodes);

      CniNetwork edited = edit(cluster, name);
      assertThat(unknownFields(edited)).containsExactly("spec.futureField", "spec.rollout.surge");
      long generation = edited.getMetadata().getGeneration();

      await("Accepted of generation " + generation)
          .atMost(ClusterFixture.WAIT)
          .until(
              () ->
                  cluster
                      .condition(name, "Accepted")
                      .filter(c -> Long.valueOf(generation).equals(c.getObservedGeneration()))
                      .isPresent());
      Condition accepted = cluster.condition(name, "Accepted").orElseThrow();
      assertThat(accepted.getStatus()).as(accepted.getMessage()).isEqualTo("False");
      assertThat(accepted.getReason()).isEqualTo("UnknownFields");
      assertThat(accepted.getMessage())
          .contains("spec.futureField: not a field this operator knows")
          .contains("spec.rollout.surge: ")
          .endsWith("nodes keep generation 1");

      // A node that joins the pool now gets nothing of a spec the operator does not understand.
      String joined = cluster.node("unk");
      await().atMost(ClusterFixture.WAIT).until(() -> cluster.cniNode(joined) != null);
      await("every CniNode as it was")
          .during(HOLD)
          .atMost(HOLD.plusSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(held(cluster, nodes)).isEqualTo(before);
                assertThat(cluster.networksOn(joined)).doesNotContain(name);
              });
      nodes.forEach(
          n -> assertThat(entry(cluster, n, name).getCheck().getIntervalSeconds()).isEqualTo(60));
      CniNetwork refused = cluster.network(name);
      assertThat(unknownFields(refused)).as("the spec is left as written").hasSize(2);
      assertThat(refused.getStatus().getRendered().getSha256()).isEqualTo(revision);

      cluster
          .client
          .resources(CniNetwork.class)
          .withName(name)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"spec\":{\"futureField\":null,\"rollout\":{\"surge\":null}}}");
      cluster.awaitCondition(name, "Accepted", "True");
      List<String> all = List.of(nodes.get(0), nodes.get(1), joined);
      await("the edit's check interval on every node")
          .atMost(ClusterFixture.WAIT)
          .until(
              () ->
                  all.stream()
                      .allMatch(
                          n ->
                              cluster.networksOn(n).contains(name)
                                  && entry(cluster, n, name).getCheck().getIntervalSeconds()
                                      == 15));
      nodes.forEach(
          n ->
              assertThat(cluster.cniNode(n).getMetadata().getResourceVersion())
                  .isNotEqualTo(before.get(n).resourceVersion()));
    }
  }

  /**
   * As a rollback does, the operator starts once the newer CRD is in place. Started before, its
   * watch may go on delivering objects decoded with the older schema, the new fields pruned, for as
   * long as that watch lasts (seen: an edit accepted as if the fields were not there, and a
   * sentinel not refused within a minute), which is not what this test is about.
   */
  private static void awaitOperatorStartedOnTheNewerSchema(ClusterFixture cluster) {
    String probe =
        "apiVersion: cnioperator.dev/v1alpha1\nkind: CniNetwork\nmetadata:\n  name: unk-probe-"
            + cluster.pool
            + "\nspec:\n"
            + cluster.bridgeSpec("ct-unkp0", "10.200.53.0/24")
            + "  futureField: probe\n";
    // What the API server would store, asked without storing it.
    await("the newer schema served")
        .atMost(ClusterFixture.WAIT)
        .until(
            () -> {
              var stored =
                  cluster.controlPlane.kubectlWithInput(
                      probe, "create", "--dry-run=server", "-o", "json", "-f", "-");
              return stored.ok() && stored.stdout().contains("\"futureField\"");
            });
    TestOperator operator = TestOperator.shared();
    operator.restart();
    await("the operator ready").atMost(ClusterFixture.WAIT).until(operator::ready);
  }

  /** Patches NEWER_EDIT into the network. */
  private static CniNetwork edit(ClusterFixture cluster, String name) {
    return cluster
        .client
        .resources(CniNetwork.class)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), NEWER_EDIT);
  }

  private static List<String> unknownFields(CniNetwork network) {
    return KnownFields.unknownFields(network.getSpec(), "spec");
  }

  private static Map<String, Held> held(ClusterFixture cluster, List<String> nodes) {
    return nodes.stream()
        .collect(Collectors.toMap(Function.identity(), n -> Held.of(cluster.cniNode(n))));
  }

  private static NodeNetwork entry(ClusterFixture cluster, String node, String network) {
    return cluster.specOf(node).stream()
        .filter(e -> network.equals(e.getName()))
        .findFirst()
        .orElseThrow();
  }
}
