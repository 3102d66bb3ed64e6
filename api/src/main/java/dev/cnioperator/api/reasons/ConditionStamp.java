package dev.cnioperator.api.reasons;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;

/**
 * How both programs stamp the metav1.Conditions of one status: each with the generation of the spec
 * it describes, and a lastTransitionTime that moves only when its status does.
 *
 * @param previous the conditions of the status before, or null
 * @param generation the generation of the spec the status describes
 * @param now when the status is made
 */
public record ConditionStamp(List<Condition> previous, Long generation, Instant now) {

  /** The condition {@code type}, True or False. */
  public Condition set(ConditionType type, boolean holds, ConditionReason reason, String message) {
    return set(type, holds ? "True" : "False", reason, message);
  }

  /**
   * The condition {@code type} with this status ("True", "False", "Unknown"), reason and message;
   * it keeps the lastTransitionTime of the previous one when the status did not change.
   */
  public Condition set(ConditionType type, String status, ConditionReason reason, String message) {
    String since =
        previous == null
            ? null
            : previous.stream()
                .filter(c -> type.is(c.getType()) && status.equals(c.getStatus()))
                .map(Condition::getLastTransitionTime)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    return new ConditionBuilder()
        .withType(type.wire())
        .withStatus(status)
        .withReason(reason.wire())
        .withMessage(message)
        .withObservedGeneration(generation)
        .withLastTransitionTime(
            since != null ? since : now.truncatedTo(ChronoUnit.SECONDS).toString())
        .build();
  }
}
