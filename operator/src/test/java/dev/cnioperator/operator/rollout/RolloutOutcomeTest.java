package dev.cnioperator.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import org.junit.jupiter.api.Test;

class RolloutOutcomeTest {

  @Test
  void aRolloutReachesAnOutcomeWhenItsPhaseBecomesIt() {
    assertThat(
            RolloutOutcome.reached(
                at("a", RolloutPhase.Progressing), at("a", RolloutPhase.Complete)))
        .hasValue(RolloutOutcome.COMPLETED);
    assertThat(
            RolloutOutcome.reached(at("a", RolloutPhase.Progressing), at("a", RolloutPhase.Paused)))
        .hasValue(RolloutOutcome.PAUSED);
    assertThat(
            RolloutOutcome.reached(
                at("a", RolloutPhase.Progressing), at("a", RolloutPhase.RolledBack)))
        .hasValue(RolloutOutcome.ROLLED_BACK);
    assertThat(
            RolloutOutcome.reached(at("a", RolloutPhase.Paused), at("a", RolloutPhase.RolledBack)))
        .hasValue(RolloutOutcome.ROLLED_BACK);
  }

  @Test
  void aRolloutThatStaysWhereItWasOrProgressesReachesNothing() {
    assertThat(RolloutOutcome.reached(at("a", RolloutPhase.Paused), at("a", RolloutPhase.Paused)))
        .isEmpty();
    assertThat(
            RolloutOutcome.reached(at("a", RolloutPhase.Complete), at("a", RolloutPhase.Complete)))
        .isEmpty();
    assertThat(
            RolloutOutcome.reached(at("a", RolloutPhase.Paused), at("a", RolloutPhase.Progressing)))
        .isEmpty();
    assertThat(RolloutOutcome.reached(at("a", RolloutPhase.Complete), null)).isEmpty();
  }

  @Test
  void aNewRevisionThatCompletesAtOnceIsANewCompletedRollout() {
    // An edit back to the proven revision the nodes hold completes in the step that starts it.
    assertThat(
            RolloutOutcome.reached(at("a", RolloutPhase.Complete), at("b", RolloutPhase.Complete)))
        .hasValue(RolloutOutcome.COMPLETED);
    assertThat(RolloutOutcome.reached(null, at("a", RolloutPhase.Complete)))
        .hasValue(RolloutOutcome.COMPLETED);
  }

  @Test
  void aRolloutThatPausesAgainAfterResumingPausesTwice() {
    RolloutStatus paused = at("a", RolloutPhase.Paused);
    RolloutStatus resumed = at("a", RolloutPhase.Progressing);

    assertThat(RolloutOutcome.reached(paused, resumed)).isEmpty();
    assertThat(RolloutOutcome.reached(resumed, at("a", RolloutPhase.Paused)))
        .hasValue(RolloutOutcome.PAUSED);
  }

  private static RolloutStatus at(String revision, RolloutPhase phase) {
    return new RolloutStatus().setRevision(revision).setPhase(phase);
  }
}
