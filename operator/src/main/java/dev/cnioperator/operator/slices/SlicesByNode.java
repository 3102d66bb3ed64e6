package dev.cnioperator.operator.slices;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * A network's status.slices read once against one revision's nodeSlices, so that each node's {@link
 * SliceOfNode} is a look-up: a reconcile that renders every node of a large cluster reads the list
 * once, not once per node.
 */
public final class SlicesByNode {
  private final NodeSlices declared;
  private final SubnetSlicing slicing;
  private final Map<String, Integer> indexOfNode;
  private final int held;

  private SlicesByNode(
      NodeSlices declared, SubnetSlicing slicing, Map<String, Integer> indexOfNode, int held) {
    this.declared = declared;
    this.slicing = slicing;
    this.indexOfNode = indexOfNode;
    this.held = held;
  }

  /** {@code slices} (a network's status.slices, null for none) against {@code declared}. */
  public static SlicesByNode of(NodeSlices declared, List<NodeSlice> slices) {
    SubnetSlicing slicing = declared == null ? null : SubnetSlicing.of(declared).orElse(null);
    Map<String, Integer> indexOfNode = new HashMap<>();
    BitSet taken = new BitSet();
    if (slicing != null && slices != null) {
      for (NodeSlice entry : slices) {
        OptionalInt index = slicing.indexOf(entry.getSlice());
        if (index.isPresent()) {
          // A node's first entry of this slicing is its slice, as the list is read in order.
          if (entry.getNode() != null) {
            indexOfNode.putIfAbsent(entry.getNode(), index.getAsInt());
          }
          taken.set(index.getAsInt());
        }
      }
    }
    return new SlicesByNode(declared, slicing, indexOfNode, taken.cardinality());
  }

  /**
   * The slice the list holds for {@code node}, if it is a slice of the declared nodeSlices;
   * otherwise why the node waits: for the operator to assign one, or for one to be freed when every
   * slice is held by another node.
   */
  public SliceOfNode of(String node) {
    if (declared == null) {
      return new SliceOfNode.Undeclared();
    }
    if (slicing == null) {
      return new SliceOfNode.Lacking("this revision's nodeSlices are not valid");
    }
    Integer index = indexOfNode.get(node);
    if (index != null) {
      return SliceOfNode.assigned(slicing, index);
    }
    // The node holds none of them, so every slice held is held by another node.
    if (held >= slicing.count()) {
      return new SliceOfNode.Lacking(
          "no free /"
              + slicing.sliceLength()
              + " slice left in "
              + slicing.subnetText()
              + ": all "
              + slicing.count()
              + " are held by other nodes");
    }
    return new SliceOfNode.Lacking("waiting for a slice of " + slicing.subnetText());
  }
}
