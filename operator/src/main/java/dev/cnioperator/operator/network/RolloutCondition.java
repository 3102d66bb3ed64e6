package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.v1alpha1.RolloutFailure;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.runtime.text.CappedList;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * The RolledOut condition from status.rollout: True once every selected node holds and proved the
 * newest revision; False with reason Progressing, Paused or RolledBack, naming the failed node and
 * the probe's error, otherwise. {@code kubectl wait --for=condition=RolledOut} waits on it.
 */
final class RolloutCondition {

  /** Makes a condition of the type, status, reason and message. */
  interface Maker {
    Condition set(ConditionType type, boolean status, ConditionReason reason, String message);
  }

  private RolloutCondition() {}

  static Condition of(Maker make, RolloutStatus r) {
    ConditionType type = ConditionType.ROLLED_OUT;
    if (r == null) {
      return make.set(
          type,
          false,
          ConditionReason.NOT_ACCEPTED,
          "no revision was ever accepted (see Accepted)");
    }
    String revision = "revision " + shortSha(r.getRevision());
    String updated = r.getUpdated() + " nodes hold and proved " + revision;
    return switch (r.getPhase()) {
      case Complete -> make.set(type, true, ConditionReason.ROLLED_OUT, updated);
      case Progressing ->
          make.set(
              type,
              false,
              ConditionReason.PROGRESSING,
              updated
                  + (r.getSelectedNodes() != null && r.getSelectedNodes() == 0
                      ? "; waiting for a node to take it"
                      : r.getStableRevision() == null
                          ? "; a new network goes to every node at once"
                          : batch(r.getBatch()) + "; the others hold " + stable(r)));
      case Paused ->
          make.set(
              type,
              false,
              ConditionReason.PAUSED,
              failure(r.getFailure())
                  + "; no further node takes it until the failure clears or the spec changes ("
                  + r.getUpdated()
                  + " updated)");
      case RolledBack ->
          make.set(
              type,
              false,
              ConditionReason.ROLLED_BACK,
              failure(r.getFailure())
                  + "; the nodes that took it hold "
                  + stable(r)
                  + " again and the others were not touched; edit the spec to roll out again");
    };
  }

  private static String batch(List<String> batch) {
    return batch == null || batch.isEmpty() ? "" : "; proving now: " + CappedList.names(batch);
  }

  private static String failure(RolloutFailure f) {
    String what =
        ConditionReason.NO_REPORT.is(f.getReason())
            ? " has not proven revision "
            : " failed the probe of revision ";
    return "node " + f.getNode() + what + shortSha(f.getRevision()) + ": " + f.getMessage();
  }

  private static String stable(RolloutStatus r) {
    return "revision "
        + shortSha(r.getStableRevision())
        + (Boolean.TRUE.equals(r.getStableUnproven())
            ? " (never proven on every node: the rollout before this one did not complete)"
            : "");
  }

  private static String shortSha(String sha) {
    return sha == null ? "none" : sha.substring(0, Math.min(12, sha.length()));
  }
}
