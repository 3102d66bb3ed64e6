package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What the operator reads of metav1.Conditions ({@link dev.cnioperator.api.reasons.ConditionStamp}
 * makes them).
 */
final class Conditions {
  /** RolledOut reasons that call for a person: a Warning Event, not a Normal one. */
  static final Set<String> ROLLOUT_STOPPED =
      Set.of(ConditionReason.PAUSED.wire(), ConditionReason.ROLLED_BACK.wire());

  /**
   * Ready False reasons that are progress, not trouble (the nodes are taking or proving the
   * revision): a Normal Event. A node that never gets there is reported by Degraded and RolledOut.
   */
  static final Set<String> READY_IN_PROGRESS =
      Set.of(ConditionReason.APPLYING.wire(), ConditionReason.PROVING.wire());

  private Conditions() {}

  static Optional<Condition> find(List<Condition> conditions, String type) {
    if (conditions == null) {
      return Optional.empty();
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  static boolean isTrue(Condition c) {
    return "True".equals(c.getStatus());
  }

  /** Whether going from {@code before} to {@code after} is worth an Event. */
  static boolean isTransition(Optional<Condition> before, Condition after) {
    return before.isEmpty()
        || !Objects.equals(before.get().getStatus(), after.getStatus())
        || !Objects.equals(before.get().getReason(), after.getReason());
  }
}
