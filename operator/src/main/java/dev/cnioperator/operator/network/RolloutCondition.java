package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.RolloutFailure;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.rollout.RolloutMachine;
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
    Condition set(String type, boolean status, String reason, String message);
  }

  private RolloutCondition() {}

  static Condition of(Maker make, RolloutStatus r) {
    String type = Conditions.ROLLED_OUT;
    if (r == null) {
      return make.set(type, false, "NotAccepted", "no revision was ever accepted (see Accepted)");
    }
    String revision = "revision " + shortSha(r.getRevision());
    String updated = r.getUpdated() + " nodes hold and proved " + revision;
    return switch (r.getPhase()) {
      case Complete -> make.set(type, true, "RolledOut", updated);
      case Progressing ->
          make.set(
              type,
              false,
              "Progressing",
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
              "Paused",
              failure(r.getFailure())
                  + "; no further node takes it until the failure clears or the spec changes ("
                  + r.getUpdated()
                  + " updated)");
      case RolledBack ->
          make.set(
              type,
              false,
              "RolledBack",
              failure(r.getFailure())
                  + "; the nodes that took it hold "
                  + stable(r)
                  + " again and the others were not touched; edit the spec to roll out again");
    };
  }

  private static String batch(List<String> batch) {
    return batch == null || batch.isEmpty()
        ? ""
        : "; proving now: " + NetworkStatusFolder.listed(batch);
  }

  private static String failure(RolloutFailure f) {
    String what =
        RolloutMachine.NO_REPORT.equals(f.getReason())
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
