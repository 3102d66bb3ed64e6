package dev.cnioperator.operator.node;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.operator.rollout.NodeRevisionChoice.Placing;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/**
 * The updates that can change some CniNode spec. Agents' status reports and the operator's own
 * status counts change often and never change what a node must hold, so they re-evaluate nothing.
 */
final class NodeRelevantChanges {

  /**
   * A CniNetwork's accepted revision, its rollout's say on which node holds which revision, the
   * nodes' slices of its subnet (status.slices, which a node's rendering reads), a spec the
   * network's reconciler has taken in (check, cleanup and probe settings), or its deletion.
   *
   * <p>A new spec counts once its reconciler has observed it (status.observedGeneration), not when
   * the edit arrives: then the new revision and the rollout's first batch come in the same status
   * write, and each node is evaluated and written once per edit, not once for the settings with the
   * old revision and again for the new one; and the evaluation of every node does not queue ahead
   * of the rendering it waits for.
   */
  static final OnUpdateFilter<CniNetwork> NETWORK =
      (now, before) ->
          deletionChanged(now, before)
              || !Objects.equals(observedGeneration(now), observedGeneration(before))
              || !Objects.equals(rendered(now), rendered(before))
              || !Objects.equals(placing(now), placing(before))
              || !Objects.equals(slices(now), slices(before));

  /** A CniNode's spec (someone else edited it) or owner; not its status. */
  static final OnUpdateFilter<CniNode> CNI_NODE =
      (now, before) ->
          specOrDeletionChanged(now, before)
              || !Objects.equals(
                  now.getMetadata().getOwnerReferences(),
                  before.getMetadata().getOwnerReferences());

  private NodeRelevantChanges() {}

  private static boolean specOrDeletionChanged(HasMetadata now, HasMetadata before) {
    return !Objects.equals(now.getMetadata().getGeneration(), before.getMetadata().getGeneration())
        || deletionChanged(now, before);
  }

  private static boolean deletionChanged(HasMetadata now, HasMetadata before) {
    return !Objects.equals(
        now.getMetadata().getDeletionTimestamp(), before.getMetadata().getDeletionTimestamp());
  }

  private static Long observedGeneration(CniNetwork n) {
    return n.getStatus() == null ? null : n.getStatus().getObservedGeneration();
  }

  /** What of status.rollout decides a node's revision; not its counts and times. */
  private static Placing placing(CniNetwork n) {
    return Placing.of(n.getStatus() == null ? null : n.getStatus().getRollout());
  }

  private static Object slices(CniNetwork n) {
    return n.getStatus() == null ? null : n.getStatus().getSlices();
  }

  private static Object rendered(CniNetwork n) {
    return n.getStatus() == null ? null : n.getStatus().getRendered();
  }
}
