package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;

/** Which revision of a network one node's CniNode spec gets, from the network's status.rollout. */
public final class NodeRevisionChoice {

  /** The revision being rolled out, or the stable one. */
  public enum Choice {
    REVISION,
    STABLE
  }

  private NodeRevisionChoice() {}

  /**
   * The choice for {@code node}, which holds {@code heldRevision} now (null when nothing).
   *
   * <p>A node holds the new revision once admitted (in the current batch, or it kept it from an
   * earlier batch), and the stable one otherwise, a node that joined mid-rollout included; after a
   * rollback every node holds the stable one, so nodes that never took the revision are not
   * touched.
   */
  public static Choice of(RolloutStatus rollout, String node, String heldRevision) {
    if (rollout == null || rollout.getStableRevision() == null) {
      return Choice.REVISION;
    }
    RolloutPhase phase = rollout.getPhase();
    if (phase == RolloutPhase.Complete) {
      return Choice.REVISION;
    }
    if (phase == RolloutPhase.RolledBack) {
      return Choice.STABLE;
    }
    boolean admitted =
        rollout.getRevision().equals(heldRevision)
            || (rollout.getBatch() != null && rollout.getBatch().contains(node));
    return admitted ? Choice.REVISION : Choice.STABLE;
  }
}
