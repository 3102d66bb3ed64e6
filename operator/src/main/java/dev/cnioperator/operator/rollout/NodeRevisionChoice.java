package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import java.util.Objects;

/** Which revision of a network one node's CniNode spec gets, from the network's status.rollout. */
public final class NodeRevisionChoice {

  /** The revision being rolled out, or the stable one. */
  public enum Choice {
    REVISION,
    STABLE
  }

  private NodeRevisionChoice() {}

  /** The revision of {@code network} that a CniNode {@code spec} holds, null if none is named. */
  public static String heldRevision(CniNodeSpec spec, String network) {
    if (spec == null || spec.getNetworks() == null) {
      return null;
    }
    return spec.getNetworks().stream()
        .filter(n -> network.equals(n.getName()))
        .map(NodeNetwork::getRevision)
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(null);
  }

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
