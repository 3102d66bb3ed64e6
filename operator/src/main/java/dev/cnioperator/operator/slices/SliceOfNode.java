package dev.cnioperator.operator.slices;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import java.util.List;

/**
 * What one node has of a network revision's spec.nodeSlices, as the network's status.slices lists
 * it: the per-node values {@code $(node.slice)}, {@code $(node.slice.rangeStart)} and {@code
 * $(node.slice.rangeEnd)}, or why it has none.
 */
public sealed interface SliceOfNode {

  /** The revision declares no nodeSlices. */
  record Undeclared() implements SliceOfNode {}

  /**
   * The node's slice as a CIDR, and the first and last address host-local may hand out of it (the
   * shared subnet's network address and IPv4 broadcast address left out).
   */
  record Assigned(String slice, String rangeStart, String rangeEnd) implements SliceOfNode {}

  /**
   * The revision declares nodeSlices, and the node has no slice of them: {@code reason} says why.
   */
  record Lacking(String reason) implements SliceOfNode {

    /** Why {@code node} does not get the network, as its CniNode and the network's status say. */
    public String messageFor(String node) {
      return "node " + node + " has no slice: " + reason;
    }
  }

  /**
   * The slice {@code slices} (a network's status.slices) lists for {@code node}, if it is a slice
   * of {@code declared}; otherwise why the node waits: for the operator to assign one, or for one
   * to be freed when every slice is held by another node.
   */
  static SliceOfNode of(NodeSlices declared, List<NodeSlice> slices, String node) {
    return SlicesByNode.of(declared, slices).of(node);
  }

  /**
   * The values a template is validated with: the first slice of {@code declared}, when it is valid.
   */
  static SliceOfNode sample(NodeSlices declared) {
    return SubnetSlicing.of(declared)
        .<SliceOfNode>map(s -> assigned(s, 0))
        .orElseGet(Undeclared::new);
  }

  static Assigned assigned(SubnetSlicing slicing, int index) {
    return new Assigned(
        slicing.slice(index).toString(), slicing.rangeStart(index), slicing.rangeEnd(index));
  }
}
