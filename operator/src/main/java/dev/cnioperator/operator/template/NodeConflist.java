package dev.cnioperator.operator.template;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import java.util.List;

/**
 * What one node holds of a network's accepted revision: the revision's configuration list rendered
 * with that node's values, or why the node cannot have it. A revision without placeholders is the
 * same on every node.
 */
public sealed interface NodeConflist {

  /** The bytes this node gets, as text, with their sha256. */
  record Ready(String content, String sha256) implements NodeConflist {}

  /**
   * The node lacks a value the revision uses, or its slice of the revision's nodeSlices; the
   * message names the node and the value.
   */
  record Waiting(String message) implements NodeConflist {}

  /**
   * {@code revision} (status.rendered of a CniNetwork) rendered for {@code node}, whose slice of
   * the revision's nodeSlices is the one {@code slices} (that network's status.slices) lists. A
   * node without a slice of a network that declares nodeSlices does not get it, whether or not the
   * revision uses the slice.
   */
  static NodeConflist of(RenderedConfig revision, NodeValues node, List<NodeSlice> slices) {
    return RevisionRenderer.of(revision, slices).forNode(node);
  }
}
