package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a rollout stopped moving: every selected node proved the revision, or a node's failure
 * paused it or rolled it back. Counted once per transition of status.rollout into it.
 */
public enum RolloutOutcome {
  COMPLETED("completed"),
  PAUSED("paused"),
  ROLLED_BACK("rolled_back");

  private final String label;

  RolloutOutcome(String label) {
    this.label = label;
  }

  /** The metric label value. */
  public String label() {
    return label;
  }

  /**
   * The outcome a status write from {@code before} to {@code after} reaches: {@code after}'s phase
   * is Complete, Paused or RolledBack and {@code before} was not that phase of the same revision.
   * Empty for a rollout still progressing, or one that stays where it was (a paused rollout whose
   * counts change reaches nothing new). A paused rollout that resumes and pauses again pauses
   * twice.
   */
  public static Optional<RolloutOutcome> reached(RolloutStatus before, RolloutStatus after) {
    if (after == null || after.getPhase() == null) {
      return Optional.empty();
    }
    boolean same =
        before != null
            && before.getPhase() == after.getPhase()
            && Objects.equals(before.getRevision(), after.getRevision());
    if (same) {
      return Optional.empty();
    }
    return Optional.ofNullable(of(after.getPhase()));
  }

  private static RolloutOutcome of(RolloutPhase phase) {
    return switch (phase) {
      case Complete -> COMPLETED;
      case Paused -> PAUSED;
      case RolledBack -> ROLLED_BACK;
      case Progressing -> null;
    };
  }
}
