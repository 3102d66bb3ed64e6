package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import java.util.List;

/** Which revision of a network one node's CniNode spec gets, from the network's status.rollout. */
public final class NodeRevisionChoice {

  /** The revision being rolled out, or the stable one. */
  public enum Choice {
    REVISION,
    STABLE
  }

  /**
   * What of a status.rollout decides which revision a node gets, and all that the choice reads:
   * nodes are re-evaluated when it changes (not when the rollout's counts and times do), so the
   * choice takes this, not the whole status.
   *
   * @param stable the stable revision's rendering, which nodes held back get
   */
  public record Placing(
      RolloutPhase phase,
      String revision,
      String stableRevision,
      RenderedConfig stable,
      List<String> batch) {

    /** The placing part of {@code rollout}; null when there is no rollout. */
    public static Placing of(RolloutStatus rollout) {
      return rollout == null
          ? null
          : new Placing(
              rollout.getPhase(),
              rollout.getRevision(),
              rollout.getStableRevision(),
              rollout.getStable(),
              rollout.getBatch());
    }
  }

  private NodeRevisionChoice() {}

  /** The revision of {@code network} that a CniNode {@code spec} holds, null if none is named. */
  public static String heldRevision(CniNodeSpec spec, String network) {
    return spec == null ? null : spec.network(network).map(NodeNetwork::getRevision).orElse(null);
  }

  /**
   * The choice for {@code node}, which holds {@code heldRevision} now (null when nothing).
   *
   * <p>A node holds the new revision once admitted (in the current batch, or it kept it from an
   * earlier batch), and the stable one otherwise, a node that joined mid-rollout included; after a
   * rollback every node holds the stable one, so nodes that never took the revision are not
   * touched.
   */
  public static Choice of(Placing rollout, String node, String heldRevision) {
    if (rollout == null || rollout.stableRevision() == null) {
      return Choice.REVISION;
    }
    RolloutPhase phase = rollout.phase();
    if (phase == RolloutPhase.Complete) {
      return Choice.REVISION;
    }
    if (phase == RolloutPhase.RolledBack) {
      return Choice.STABLE;
    }
    boolean admitted =
        rollout.revision().equals(heldRevision)
            || (rollout.batch() != null && rollout.batch().contains(node));
    return admitted ? Choice.REVISION : Choice.STABLE;
  }
}
