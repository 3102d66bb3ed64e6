package dev.cnioperator.operator.rollout;

import static dev.cnioperator.operator.rollout.FakeCluster.revision;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutFailurePolicy;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RolloutMachineTest {
  private static final RenderedConfig GOOD = revision("good");
  private static final RenderedConfig NEXT = revision("next");
  private static final RenderedConfig BROKEN = revision("broken");

  @Test
  void newNetworkGoesToEveryNodeAtOnceAndCompletesWhenAllProvedIt() {
    FakeCluster cluster = FakeCluster.of(5, null);

    RolloutStatus first = cluster.step(GOOD);

    assertThat(first.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(first.getStableRevision()).isNull();
    assertThat(cluster.holding(GOOD)).hasSize(5);
    assertThat(first.getUpdated()).isEqualTo("0/5");

    RolloutStatus done = cluster.step(GOOD);

    assertThat(done.getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(done.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(done.getUpdated()).isEqualTo("5/5");
  }

  @Test
  void statusFromBeforeRolloutsCountsAsCompleteOnTheRenderedRevision() {
    FakeCluster cluster = FakeCluster.of(3, GOOD);

    RolloutStatus status = cluster.step(GOOD);

    assertThat(status.getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(status.getRevision()).isEqualTo(GOOD.getSha256());
    assertThat(status.getUpdated()).isEqualTo("3/3");
    assertThat(cluster.writes).isEmpty();
  }

  @Test
  void goodEditGoesCanaryFirstThenInBatchesNeverOverTheLimitAndEndsEverywhere() {
    FakeCluster cluster = settled(10);

    List<List<String>> batches = new ArrayList<>();
    for (int i = 0;
        i < 20 && !cluster.holding(NEXT).equals(List.copyOf(cluster.held.keySet()));
        i++) {
      List<String> before = cluster.holding(NEXT);
      cluster.step(NEXT);
      List<String> admitted =
          cluster.holding(NEXT).stream().filter(n -> !before.contains(n)).toList();
      if (!admitted.isEmpty()) {
        batches.add(admitted);
      }
    }

    assertThat(batches)
        .containsExactly(
            List.of("node-00"),
            List.of("node-01", "node-02", "node-03"),
            List.of("node-04", "node-05", "node-06"),
            List.of("node-07", "node-08", "node-09"));
    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(cluster.status.getUpdated()).isEqualTo("7/10");

    cluster.step(NEXT); // the last batch's reports

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(cluster.status.getUpdated()).isEqualTo("10/10");
    assertThat(cluster.status.getStableRevision()).isEqualTo(NEXT.getSha256());
    assertThat(cluster.status.getStable()).isNull();
    assertThat(cluster.holding(NEXT)).hasSize(10);
    assertThat(cluster.writes.values()).allSatisfy(w -> assertThat(w).hasSize(1));
  }

  @Test
  void batchWaitsForEveryAdmittedNodeToProveTheRevision() {
    FakeCluster cluster = settled(4);
    cluster.batchSize = new BatchSize(2, "2");
    cluster.probe = (node, revision) -> !node.equals("node-01");
    // node-01 has no report yet: PENDING, not FAILED.
    cluster.step(NEXT);
    List<NodeProgress> pending = new ArrayList<>();
    cluster.held.forEach(
        (n, h) ->
            pending.add(
                NEXT.getSha256().equals(h) && n.equals("node-01")
                    ? new NodeProgress(
                        n, NodeProgress.Holding.REVISION, NodeProgress.Proof.PENDING, null)
                    : NEXT.getSha256().equals(h)
                        ? NodeProgress.passed(n)
                        : NodeProgress.holding(n, NodeProgress.Holding.STABLE)));

    RolloutMachine.Step step =
        RolloutMachine.next(
            new RolloutMachine.Input(
                NEXT,
                NEXT,
                cluster.status,
                cluster.batchSize,
                RolloutFailurePolicy.Rollback,
                Duration.ZERO,
                Duration.ofSeconds(600),
                pending,
                cluster.now));

    assertThat(step.status().getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(step.status().getBatch()).containsExactly("node-00", "node-01");
    assertThat(step.status().getUpdated()).isEqualTo("1/4");
    assertThat(step.recheckAfter()).contains(Duration.ofSeconds(600));
  }

  @Test
  void aSilentNodePausesTheRolloutAtTheDeadlineNamingItAndRollsNothingBack() {
    FakeCluster cluster = settled(4);
    cluster.silent.add("node-00");

    cluster.step(NEXT); // node-00 admitted as the canary; its agent never reports
    cluster.now = cluster.now.plusSeconds(100);
    cluster.step(NEXT);

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(cluster.lastStep.recheckAfter()).contains(Duration.ofSeconds(500));

    cluster.now = cluster.now.plusSeconds(500);
    cluster.step(NEXT);

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Paused);
    assertThat(cluster.status.getFailure().getNode()).isEqualTo("node-00");
    assertThat(cluster.status.getFailure().getReason()).isEqualTo("NoReport");
    assertThat(cluster.status.getFailure().getMessage())
        .contains("no report on the revision within 600 s");
    assertThat(cluster.holding(NEXT)).containsExactly("node-00");
    assertThat(cluster.writes).containsOnlyKeys("node-00");

    cluster.silent.clear(); // the agent is back and proves it
    cluster.step(NEXT);

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(cluster.status.getFailure()).isNull();
    assertThat(cluster.holding(NEXT)).hasSize(2);
  }

  @Test
  void withNoNodeInSightAnEditNeitherCompletesNorBecomesTheStableRevision() {
    // As an operator that stops sees it: its caches emptied, every node gone at once.
    FakeCluster cluster = settled(3);
    cluster.step(NEXT);
    Map<String, String> nodes = new TreeMap<>(cluster.held);
    cluster.held.clear();

    cluster.step(NEXT);

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(cluster.status.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(cluster.status.getUpdated()).isEqualTo("0/0");

    cluster.held.putAll(nodes); // back: the rollout goes on from where it was
    cluster.step(NEXT);

    assertThat(cluster.status.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(cluster.holding(NEXT)).hasSize(2);
  }

  @Test
  void aSilentNodeWithoutDeadlineIsWaitedForWithoutEnd() {
    FakeCluster cluster = settled(4);
    cluster.deadline = Duration.ZERO;
    cluster.silent.add("node-00");

    cluster.step(NEXT);
    cluster.now = cluster.now.plusSeconds(86_400);
    cluster.step(NEXT);

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(cluster.status.getFailure()).isNull();
    assertThat(cluster.lastStep.recheckAfter()).isEmpty();
    assertThat(cluster.holding(NEXT)).containsExactly("node-00");
  }

  @Test
  void pauseSecondsSeparateBatchesButNotTheFirstOne() {
    FakeCluster cluster = settled(4);
    cluster.pause = Duration.ofSeconds(30);

    cluster.step(NEXT);
    assertThat(cluster.holding(NEXT)).containsExactly("node-00");

    cluster.step(NEXT);
    assertThat(cluster.lastStep.recheckAfter()).contains(Duration.ofSeconds(30));
    assertThat(cluster.status.getBatchPassedTime()).isEqualTo("2026-11-23T10:00:00Z");
    assertThat(cluster.holding(NEXT)).containsExactly("node-00");

    cluster.now = cluster.now.plusSeconds(20);
    cluster.step(NEXT);
    assertThat(cluster.lastStep.recheckAfter()).contains(Duration.ofSeconds(10));
    assertThat(cluster.holding(NEXT)).containsExactly("node-00");

    cluster.now = cluster.now.plusSeconds(10);
    cluster.step(NEXT);
    assertThat(cluster.holding(NEXT)).containsExactly("node-00", "node-01");
    assertThat(cluster.status.getBatchStartTime()).isEqualTo("2026-11-23T10:00:30Z");
  }

  @Test
  void failedProbeRollsBackTheNodesThatTookItAndNeverTouchesTheOthers() {
    FakeCluster cluster = settled(8);
    cluster.batchSize = new BatchSize(1, "3");
    cluster.probe =
        (node, revision) -> !(revision.equals(BROKEN.getSha256()) && node.equals("node-02"));

    cluster.step(BROKEN);
    for (int i = 0; i < 6 && cluster.status.getPhase() == RolloutPhase.Progressing; i++) {
      cluster.step(BROKEN);
    }

    RolloutStatus status = cluster.status;
    assertThat(status.getPhase()).isEqualTo(RolloutPhase.RolledBack);
    assertThat(status.getFailure().getNode()).isEqualTo("node-02");
    assertThat(status.getFailure().getRevision()).isEqualTo(BROKEN.getSha256());
    assertThat(status.getFailure().getMessage()).contains("MTU 70000");
    assertThat(status.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(cluster.holding(GOOD)).hasSize(8);
    // node-00 was the canary, node-01..03 the batch that met the failure; the rest never changed.
    assertThat(cluster.writes.keySet()).containsExactly("node-00", "node-01", "node-02", "node-03");
    assertThat(cluster.writes.get("node-02")).containsExactly(BROKEN.getSha256(), GOOD.getSha256());

    RolloutStatus again = cluster.step(BROKEN);
    assertThat(again.getPhase()).isEqualTo(RolloutPhase.RolledBack);
    assertThat(again.getFailure()).isEqualTo(status.getFailure());
    assertThat(cluster.writes.keySet()).hasSize(4);
  }

  @Test
  void failedProbeWithPauseKeepsNodesAsTheyAreAndResumesWhenTheFailureClears() {
    FakeCluster cluster = settled(4);
    cluster.onFailure = RolloutFailurePolicy.Pause;
    Map<String, Boolean> failing = new TreeMap<>(Map.of("node-00", true));
    cluster.probe = (node, revision) -> !failing.getOrDefault(node, false);

    cluster.step(NEXT);
    RolloutStatus paused = cluster.step(NEXT);
    cluster.step(NEXT);

    assertThat(paused.getPhase()).isEqualTo(RolloutPhase.Paused);
    assertThat(paused.getFailure().getNode()).isEqualTo("node-00");
    assertThat(cluster.holding(NEXT)).containsExactly("node-00");

    failing.clear();
    RolloutStatus resumed = cluster.step(NEXT);

    assertThat(resumed.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(resumed.getFailure()).isNull();
    assertThat(cluster.holding(NEXT)).containsExactly("node-00", "node-01");
  }

  @Test
  void newNetworkThatFailsIsPausedSinceThereIsNothingToRollBackTo() {
    FakeCluster cluster = FakeCluster.of(2, null);
    cluster.probe = (node, revision) -> false;

    cluster.step(BROKEN);
    RolloutStatus status = cluster.step(BROKEN);

    assertThat(status.getPhase()).isEqualTo(RolloutPhase.Paused);
    assertThat(status.getFailure().getNode()).isEqualTo("node-00");
    assertThat(cluster.holding(BROKEN)).hasSize(2);
  }

  @Test
  void brokenEditOfANetworkThatNeverProvedItsFirstRevisionRollsBackToThatRevisionSayingSo() {
    // One node where the first revision cannot attach (a leftover bridge), then a broken edit.
    FakeCluster cluster = FakeCluster.of(1, null);
    cluster.probe = (node, revision) -> false;
    cluster.step(GOOD);
    assertThat(cluster.step(GOOD).getPhase()).isEqualTo(RolloutPhase.Paused);

    cluster.step(BROKEN);
    RolloutStatus status = cluster.step(BROKEN);

    assertThat(status.getPhase()).isEqualTo(RolloutPhase.RolledBack);
    assertThat(status.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(status.getStableUnproven()).isTrue();
    assertThat(status.getFailure().getRevision()).isEqualTo(BROKEN.getSha256());
    assertThat(cluster.held.get("node-00")).isEqualTo(GOOD.getSha256());
    assertThat(cluster.writes.get("node-00"))
        .containsExactly(GOOD.getSha256(), BROKEN.getSha256(), GOOD.getSha256());
  }

  @Test
  void revertingToAnUnprovenRevisionWaitsForItsProofInsteadOfCompletingAtOnce() {
    FakeCluster cluster = FakeCluster.of(2, null);
    cluster.probe = (node, revision) -> false;
    cluster.step(GOOD);
    cluster.step(GOOD);
    cluster.step(BROKEN);
    assertThat(cluster.step(BROKEN).getPhase()).isEqualTo(RolloutPhase.RolledBack);

    RolloutStatus reverted = cluster.step(GOOD);

    // Still failing on the node: not Complete, and nothing is called stable.
    assertThat(reverted.getPhase()).isEqualTo(RolloutPhase.Paused);
    assertThat(reverted.getStableRevision()).isNull();
    cluster.probe = (node, revision) -> true;
    assertThat(cluster.step(GOOD).getPhase()).isEqualTo(RolloutPhase.Complete);
  }

  @Test
  void editMidRolloutStartsOverFromTheStableRevisionChangedNodesFirst() {
    FakeCluster cluster = settled(8);
    cluster.batchSize = new BatchSize(1, "2");
    cluster.step(NEXT); // canary node-00
    cluster.step(NEXT); // node-01, node-02
    assertThat(cluster.holding(NEXT)).containsExactly("node-00", "node-01", "node-02");
    RenderedConfig third = revision("third");

    RolloutStatus status = cluster.step(third);

    assertThat(status.getRevision()).isEqualTo(third.getSha256());
    assertThat(status.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(status.getStable()).isEqualTo(GOOD);
    assertThat(status.getBatch()).containsExactly("node-00");
    assertThat(cluster.holding(third)).containsExactly("node-00");
    // The other changed nodes hold the proven stable revision until their turn.
    assertThat(cluster.holding(NEXT)).isEmpty();
    assertThat(cluster.held.get("node-03")).isEqualTo(GOOD.getSha256());
    assertThat(cluster.writes).doesNotContainKey("node-03");
  }

  @Test
  void editAfterRollbackStartsANewRolloutAndRevertingToStableCompletesAtOnce() {
    FakeCluster cluster = settled(4);
    cluster.probe = (node, revision) -> !revision.equals(BROKEN.getSha256());
    cluster.step(BROKEN);
    assertThat(cluster.step(BROKEN).getPhase()).isEqualTo(RolloutPhase.RolledBack);

    RolloutStatus fixed = cluster.step(NEXT);
    assertThat(fixed.getPhase()).isEqualTo(RolloutPhase.Progressing);
    assertThat(fixed.getStableRevision()).isEqualTo(GOOD.getSha256());
    assertThat(fixed.getFailure()).isNull();

    RolloutStatus reverted = cluster.step(GOOD);
    assertThat(reverted.getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(cluster.holding(GOOD)).hasSize(4);
  }

  @Test
  void nodeJoiningMidRolloutHoldsTheStableRevisionUntilItsTurn() {
    FakeCluster cluster = settled(4);
    cluster.batchSize = new BatchSize(1, "1");
    cluster.step(NEXT);

    cluster.held.put("node-99", null);
    RolloutStatus status = cluster.step(NEXT);

    assertThat(status.getSelectedNodes()).isEqualTo(5);
    assertThat(cluster.held.get("node-99")).isEqualTo(GOOD.getSha256());
    for (int i = 0; i < 10 && cluster.status.getPhase() != RolloutPhase.Complete; i++) {
      cluster.step(NEXT);
    }
    assertThat(cluster.holding(NEXT)).contains("node-99").hasSize(5);
  }

  @Test
  void nodeLeavingMidBatchDoesNotHoldTheRolloutUp() {
    FakeCluster cluster = settled(3);
    cluster.batchSize = new BatchSize(1, "1");
    cluster.step(NEXT);
    cluster.step(NEXT);
    assertThat(cluster.status.getBatch()).containsExactly("node-01");
    // node-01 goes before its agent reports; the stale batch entry must not block.
    cluster.held.remove("node-01");
    cluster.probe = (node, revision) -> true;

    for (int i = 0; i < 5 && cluster.status.getPhase() != RolloutPhase.Complete; i++) {
      cluster.step(NEXT);
    }

    assertThat(cluster.status.getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(cluster.status.getUpdated()).isEqualTo("2/2");
  }

  /** {@code count} nodes on GOOD, its rollout complete. */
  private static FakeCluster settled(int count) {
    FakeCluster cluster = FakeCluster.of(count, GOOD);
    cluster.batchSize = new BatchSize(1, "25%");
    cluster.step(GOOD);
    cluster.writes.clear();
    return cluster;
  }
}
