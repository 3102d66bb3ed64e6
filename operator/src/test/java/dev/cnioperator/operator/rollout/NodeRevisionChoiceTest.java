package dev.cnioperator.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.rollout.NodeRevisionChoice.Choice;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeRevisionChoiceTest {
  private static final String NEW = "1".repeat(64);
  private static final String STABLE = "2".repeat(64);

  private static RolloutStatus rollout(RolloutPhase phase, String stable, String... batch) {
    return new RolloutStatus()
        .setRevision(NEW)
        .setStableRevision(stable)
        .setPhase(phase)
        .setBatch(List.of(batch));
  }

  private static Choice choice(RolloutStatus rollout, String node, String heldRevision) {
    return NodeRevisionChoice.of(NodeRevisionChoice.Placing.of(rollout), node, heldRevision);
  }

  @Test
  void duringARolloutOnlyAdmittedNodesHoldTheNewRevision() {
    RolloutStatus r = rollout(RolloutPhase.Progressing, STABLE, "b");

    assertThat(choice(r, "a", STABLE)).isEqualTo(Choice.STABLE);
    assertThat(choice(r, "b", STABLE)).isEqualTo(Choice.REVISION);
    assertThat(choice(r, "c", NEW)).isEqualTo(Choice.REVISION);
    assertThat(choice(r, "joined", null)).isEqualTo(Choice.STABLE);
    assertThat(choice(rollout(RolloutPhase.Paused, STABLE), "c", NEW)).isEqualTo(Choice.REVISION);
  }

  @Test
  void rollbackGivesEveryNodeTheStableRevisionAndCompletionTheNewOne() {
    assertThat(choice(rollout(RolloutPhase.RolledBack, STABLE), "c", NEW)).isEqualTo(Choice.STABLE);
    assertThat(choice(rollout(RolloutPhase.Complete, NEW), "joined", null))
        .isEqualTo(Choice.REVISION);
  }

  @Test
  void withoutAStableRevisionEveryNodeTakesTheNewOne() {
    assertThat(choice(null, "a", null)).isEqualTo(Choice.REVISION);
    assertThat(choice(rollout(RolloutPhase.Progressing, null), "a", null))
        .isEqualTo(Choice.REVISION);
  }
}
