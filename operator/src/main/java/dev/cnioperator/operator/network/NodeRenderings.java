package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.template.NodeConflist;
import dev.cnioperator.operator.template.NodeValues;
import dev.cnioperator.operator.template.RevisionRenderer;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Each node's rendering of a network's accepted revision, made once per reconcile: the rollout
 * steps over the nodes that can have it, and the nodes it admits are folded against it. A node held
 * back on another revision is rendered again for that one, each such revision parsed once.
 */
final class NodeRenderings {
  private final RenderedConfig accepted;
  private final List<String> holding;
  private final Map<String, NodeValues> values;
  private final Map<String, NodeConflist> ofAccepted;
  private final Map<String, RevisionRenderer> heldBack = new HashMap<>();

  private NodeRenderings(
      RenderedConfig accepted,
      List<String> holding,
      Map<String, NodeValues> values,
      Map<String, NodeConflist> ofAccepted) {
    this.accepted = accepted;
    this.holding = holding;
    this.values = values;
    this.ofAccepted = ofAccepted;
  }

  /**
   * @param holding the nodes the network is placed on
   * @param acceptedSlices the slices of the accepted revision
   */
  static NodeRenderings of(
      RenderedConfig accepted,
      List<NodeSlice> acceptedSlices,
      List<String> holding,
      InformerEventSource<Node, ?> nodes) {
    Map<String, NodeValues> values = new TreeMap<>();
    Map<String, NodeConflist> ofAccepted = new TreeMap<>();
    RevisionRenderer renderer =
        holding.isEmpty() ? null : RevisionRenderer.of(accepted, acceptedSlices);
    for (String n : holding) {
      nodes
          .get(new ResourceID(n))
          .map(NodeValues::of)
          .ifPresent(
              v -> {
                values.put(n, v);
                ofAccepted.put(n, renderer.forNode(v));
              });
    }
    return new NodeRenderings(accepted, holding, values, ofAccepted);
  }

  /** The nodes, in placement order, that can hold the accepted revision as rendered for them. */
  List<String> ready() {
    return holding.stream().filter(n -> ofAccepted.get(n) instanceof NodeConflist.Ready).toList();
  }

  /**
   * What {@code node} should hold of {@code revision} (the accepted one, or the stable one it is
   * held back on), null when the node is gone from the cache.
   *
   * @param slices the slices the network's nodes hold now, for a held-back revision
   */
  NodeConflist expected(String node, Supplier<RenderedConfig> revision, List<NodeSlice> slices) {
    NodeValues v = values.get(node);
    if (v == null) {
      return null;
    }
    RenderedConfig r = revision.get();
    if (r == accepted) {
      return ofAccepted.get(node);
    }
    return heldBack
        .computeIfAbsent(r.getSha256(), sha -> RevisionRenderer.of(r, slices))
        .forNode(v);
  }
}
