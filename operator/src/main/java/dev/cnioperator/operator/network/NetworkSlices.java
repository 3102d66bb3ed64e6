package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.slices.SliceAllocator;
import dev.cnioperator.operator.slices.SubnetSlicing;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slices step of one reconcile: each node's slice of the accepted revision's spec.nodeSlices,
 * decided by the {@link SliceAllocator} from status.slices, to be written with the status before
 * any node is rendered with it (the Node reconciler renders from status.slices only).
 */
final class NetworkSlices {
  private static final Logger log = LoggerFactory.getLogger(NetworkSlices.class);

  private NetworkSlices() {}

  /**
   * The status.slices {@code network} should have: empty when its accepted revision declares no
   * nodeSlices; as they are when there is no accepted revision to cut against.
   *
   * @param placed the nodes the accepted revision is placed on, in name order
   * @param nodeExists whether the Node of that name exists
   * @param cniNodes the CniNode of a node, null when it has none
   */
  static List<NodeSlice> next(
      CniNetwork network,
      RenderedConfig accepted,
      List<String> placed,
      Predicate<String> nodeExists,
      Function<String, CniNode> cniNodes) {
    List<NodeSlice> current =
        network.getStatus() == null || network.getStatus().getSlices() == null
            ? List.of()
            : network.getStatus().getSlices();
    if (accepted == null) {
      return current;
    }
    if (accepted.getNodeSlices() == null) {
      return List.of();
    }
    Optional<SubnetSlicing> slicing = SubnetSlicing.of(accepted.getNodeSlices());
    if (slicing.isEmpty()) {
      // Rendered from a valid spec, so status.rendered was damaged: keep what nodes were given.
      return current;
    }
    String name = network.getMetadata().getName();
    SliceAllocator.Allocation allocation =
        SliceAllocator.allocate(
            slicing.get(),
            current,
            placed,
            node ->
                nodeExists.test(node)
                    && Optional.ofNullable(cniNodes.apply(node))
                        .map(c -> mayHold(c, name))
                        .orElse(false));
    if (!allocation.slices().equals(current)) {
      log.info(
          "event=slices-changed network={} subnet={} slices={} without-slice={}",
          name,
          slicing.get().subnetText(),
          allocation.slices().stream().map(s -> s.getNode() + "=" + s.getSlice()).toList(),
          allocation.withoutSlice());
    }
    return allocation.slices();
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
