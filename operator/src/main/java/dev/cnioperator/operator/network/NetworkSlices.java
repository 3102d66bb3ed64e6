package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.slices.SliceAllocator;
import dev.cnioperator.operator.slices.SubnetSlicing;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The slices step of one reconcile: each node's slice of the nodeSlices of every revision it may
 * hold, decided by the {@link SliceAllocator} from status.slices, to be written with the status
 * before any node is rendered with it (the Node reconciler renders from status.slices only).
 */
final class NetworkSlices {
  private NetworkSlices() {}

  /**
   * The status.slices {@code network} should have: each node's slice of the accepted revision's
   * nodeSlices and of those of every revision in {@code alsoHeld}, so that a node held back on an
   * earlier revision keeps its slice of it: an edit of spec.nodeSlices rolls out in stages like any
   * other. Each revision's rendering reads only the entries of its own nodeSlices ({@link
   * dev.cnioperator.operator.slices.SliceOfNode}). Empty when none of them declares nodeSlices; as
   * they are when there is no accepted revision to cut against.
   *
   * @param alsoHeld the revisions nodes may hold besides the accepted one ({@link #stillHeld})
   * @param placed the nodes the accepted revision is placed on, in name order
   * @param nodeExists whether the Node of that name exists
   * @param cniNodes the CniNode of a node, null when it has none
   */
  static List<NodeSlice> next(
      CniNetwork network,
      RenderedConfig accepted,
      List<RenderedConfig> alsoHeld,
      List<String> placed,
      Predicate<String> nodeExists,
      Function<String, CniNode> cniNodes) {
    List<NodeSlice> current = current(network);
    if (accepted == null) {
      return current;
    }
    if (accepted.getNodeSlices() != null && SubnetSlicing.of(accepted.getNodeSlices()).isEmpty()) {
      // Rendered from a valid spec, so status.rendered was damaged: keep what nodes were given.
      return current;
    }
    String name = network.getMetadata().getName();
    Predicate<String> stillHolds =
        node ->
            nodeExists.test(node)
                && Optional.ofNullable(cniNodes.apply(node))
                    .map(c -> mayHold(c, name))
                    .orElse(false);
    Set<NodeSlices> declared = new LinkedHashSet<>();
    declared.add(accepted.getNodeSlices());
    alsoHeld.forEach(r -> declared.add(r.getNodeSlices()));
    declared.remove(null);
    Set<NodeSlice> next =
        new TreeSet<>(Comparator.comparing(NodeSlice::getNode).thenComparing(NodeSlice::getSlice));
    for (NodeSlices d : declared) {
      // An earlier revision damaged in the status has no slicing: nodes holding it wait.
      SubnetSlicing.of(d)
          .ifPresent(
              slicing ->
                  next.addAll(
                      SliceAllocator.allocate(slicing, current, placed, stillHolds).slices()));
    }
    return List.copyOf(next);
  }

  /** status.slices as {@code network} has it now. */
  static List<NodeSlice> current(CniNetwork network) {
    return network.getStatus() == null || network.getStatus().getSlices() == null
        ? List.of()
        : network.getStatus().getSlices();
  }

  /**
   * The revision nodes may hold besides the accepted one once {@code rollout} (the status.rollout
   * this reconcile writes) is written: its stable revision until the rollout completes (the nodes
   * held back, or every node once rolled back).
   */
  static List<RenderedConfig> stillHeld(RolloutStatus rollout) {
    return rollout != null
            && rollout.getPhase() != RolloutPhase.Complete
            && rollout.getStable() != null
        ? List.of(rollout.getStable())
        : List.of();
  }

  /**
   * Whether a node the network left may still hold its file, and so hand out addresses of its
   * slice: its CniNode spec still lists the network, or its agent still reports it (anything but
   * Removed), or its agent has not yet reported on the spec that took it off (status
   * observedGeneration behind the CniNode's generation). A CniNode no agent ever reported on holds
   * nothing; a deleted Node holds nothing either (its CniNode goes with it), which the caller
   * checks.
   */
  static boolean mayHold(CniNode node, String network) {
    if (CniNetworkReconciler.stillHolds(node, network)) {
      return true;
    }
    CniNodeStatus status = node.getStatus();
    Long observed = status == null ? null : status.getObservedGeneration();
    Long generation = node.getMetadata().getGeneration();
    return observed != null && generation != null && observed < generation;
  }
}
