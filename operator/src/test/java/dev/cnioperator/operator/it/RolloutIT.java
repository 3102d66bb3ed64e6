package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Staged rollout on the real API server, the agents simulated by writing their CniNode reports: a
 * good edit goes out in batches never larger than maxNodes and ends on every node; a failed probe
 * rolls back only the nodes that took the revision; an operator restarted mid-rollout resumes.
 */
class RolloutIT {
  private static final String ERROR =
      "ADD: CNI error 999: failed to create bridge \"ct-ro\": could not add \"ct-ro\": invalid argument";

  private ClusterFixture cluster;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    TestOperator.shared().start(); // when a test stopped it and failed before starting it again
    cluster.close();
  }

  /** {@code count} nodes holding network {@code name}, proven everywhere (RolledOut True). */
  private List<String> rolledOut(String name, int count, String rollout, String subnet) {
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      nodes.add(cluster.node("ro" + i));
    }
    nodes.sort(String::compareTo);
    cluster
        .apply(name, cluster.bridgeSpec("ct-ro" + name.length(), subnet) + rollout)
        .orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> nodes.stream().allMatch(n -> cluster.networksOn(n).contains(name)));
    nodes.forEach(cluster::agentReportsApplied);
    cluster.awaitCondition(name, "RolledOut", "True");
    return nodes;
  }

  private String edit(String name, String rollout, String subnet) {
    String before = revision(name);
    cluster
        .apply(name, cluster.bridgeSpec("ct-ro" + name.length(), subnet) + rollout)
        .orThrow("edit");
    await().atMost(ClusterFixture.WAIT).until(() -> !revision(name).equals(before));
    return revision(name);
  }

  private String revision(String name) {
    return cluster.network(name).getStatus().getRendered().getSha256();
  }

  private RolloutStatus rollout(String name) {
    return cluster.network(name).getStatus().getRollout();
  }

  /**
   * Plays the agents of each batch until every node is proven: returns the batch sizes, checking
   * that no node beyond the batch takes the revision while the batch is unproven.
   */
  private List<Integer> proveBatches(
      String name, List<String> nodes, String revision, int max, Runnable midway) {
    Set<String> proven = new HashSet<>();
    List<Integer> batches = new ArrayList<>();
    while (!proven.containsAll(nodes)) {
      List<String> admitted =
          await()
              .atMost(ClusterFixture.WAIT)
              .until(() -> cluster.holding(nodes, name, revision), h -> !proven.containsAll(h));
      // Give the operator the chance to admit more than it may; it must not.
      await().pollDelay(java.time.Duration.ofSeconds(1)).until(() -> true);
      List<String> batch =
          cluster.holding(nodes, name, revision).stream().filter(n -> !proven.contains(n)).toList();
      assertThat(batch.size()).as("unproven nodes on the new revision").isLessThanOrEqualTo(max);
      assertThat(batch).containsAll(admitted.stream().filter(n -> !proven.contains(n)).toList());
      batches.add(batch.size());
      if (batches.size() == 2 && midway != null) {
        midway.run();
      }
      batch.forEach(cluster::agentReportsApplied);
      proven.addAll(batch);
    }
    return batches;
  }

  @Test
  void goodEditGoesOutCanaryFirstThenInBatchesOfMaxNodesAndEndsOnEveryNode() {
    String name = "ro-good-" + cluster.pool;
    String rollout = "  rollout: {maxNodes: \"2\"}\n";
    List<String> nodes = rolledOut(name, 5, rollout, "10.200.40.0/24");

    String revision = edit(name, rollout, "10.200.41.0/24");
    List<Integer> batches = proveBatches(name, nodes, revision, 2, null);

    assertThat(batches).containsExactly(1, 2, 2);
    Condition rolledOut = cluster.awaitCondition(name, "RolledOut", "True");
    assertThat(rolledOut.getMessage()).contains("5/5 nodes hold and proved revision");
    assertThat(rollout(name).getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(rollout(name).getStableRevision()).isEqualTo(revision);
    assertThat(rollout(name).getStable()).isNull();
    assertThat(cluster.holding(nodes, name, revision)).containsExactlyElementsOf(nodes);
    String table = cluster.controlPlane.kubectl("get", "cninet", name).orThrow("get").stdout();
    assertThat(table).contains("UPDATED").contains("5/5");
  }

  @Test
  void failedProbeRollsBackTheCanaryAndNeverTouchesTheOtherNodes() {
    String name = "ro-bad-" + cluster.pool;
    List<String> nodes = rolledOut(name, 3, "", "10.200.42.0/24");
    String good = revision(name);
    Map<String, Long> generations = new HashMap<>();
    Map<String, NodeNetwork> before = new HashMap<>();
    for (String n : nodes) {
      CniNode node = cluster.cniNode(n);
      generations.put(n, node.getMetadata().getGeneration());
      before.put(n, cluster.specOf(n).get(0));
    }

    String bad = edit(name, "", "10.200.43.0/24");
    String canary =
        await()
            .atMost(ClusterFixture.WAIT)
            .until(() -> cluster.holding(nodes, name, bad), h -> h.size() == 1)
            .get(0);
    cluster.agentReportsProbeFailed(canary, name, ERROR);

    Condition rolledBack = cluster.awaitCondition(name, "RolledOut", "False");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> "RolledBack".equals(cluster.condition(name, "RolledOut").get().getReason()));
    rolledBack = cluster.condition(name, "RolledOut").orElseThrow();
    assertThat(rolledBack.getMessage())
        .contains("node " + canary + " failed the probe of revision " + bad.substring(0, 12))
        .contains("invalid argument")
        .contains("hold revision " + good.substring(0, 12) + " again");
    RolloutStatus status = rollout(name);
    assertThat(status.getPhase()).isEqualTo(RolloutPhase.RolledBack);
    assertThat(status.getFailure().getNode()).isEqualTo(canary);
    assertThat(status.getFailure().getMessage()).isEqualTo(ERROR);
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.holding(nodes, name, good).size() == nodes.size());
    assertThat(cluster.specOf(canary).get(0)).isEqualTo(before.get(canary));
    for (String n : nodes) {
      if (!n.equals(canary)) {
        assertThat(cluster.cniNode(n).getMetadata().getGeneration())
            .as("CniNode %s was never written", n)
            .isEqualTo(generations.get(n));
      }
    }
    List<Event> events =
        cluster.client.v1().events().inNamespace("default").list().getItems().stream()
            .filter(e -> name.equals(e.getInvolvedObject().getName()))
            .filter(e -> "RolledBack".equals(e.getReason()))
            .toList();
    assertThat(events).singleElement().extracting(Event::getType).isEqualTo("Warning");
    // What a person sees (docs/rollout.md shows it).
    String table =
        cluster.controlPlane.kubectl("get", "cninet", name, "-o", "wide").orThrow("get").stdout();
    assertThat(table).contains("0/3").contains("RolledBack");
    String described =
        cluster.controlPlane.kubectl("describe", "cninet", name).orThrow("describe").stdout();
    assertThat(described).contains("RolledBack").contains(canary);
    System.out.println("kubectl get -o wide:\n" + table + "kubectl describe:\n" + described);

    // A further edit starts a new rollout from the stable revision.
    String fixed = edit(name, "", "10.200.44.0/24");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> "Progressing".equals(cluster.condition(name, "RolledOut").get().getReason()));
    assertThat(rollout(name).getStableRevision()).isEqualTo(good);
    assertThat(rollout(name).getRevision()).isEqualTo(fixed);
  }

  @Test
  void operatorStoppedMidRolloutResumesWhereItStopped() {
    String name = "ro-restart-" + cluster.pool;
    String rollout = "  rollout: {maxNodes: \"1\"}\n";
    List<String> nodes = rolledOut(name, 4, rollout, "10.200.45.0/24");
    String revision = edit(name, rollout, "10.200.46.0/24");

    List<Integer> batches =
        proveBatches(
            name,
            nodes,
            revision,
            1,
            () -> {
              TestOperator.shared().stop();
              // Reported while no operator runs: the next one must pick it up from the status.
              cluster.holding(nodes, name, revision).forEach(cluster::agentReportsApplied);
              TestOperator.shared().start();
            });

    assertThat(batches).containsExactly(1, 1, 1, 1);
    cluster.awaitCondition(name, "RolledOut", "True");
    assertThat(cluster.holding(nodes, name, revision)).containsExactlyElementsOf(nodes);
  }
}
