package dev.cnioperator.operator.slices;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Decides which slice of a network's subnet each node holds, from the slices status.slices lists
 * now. Pure: the same input always gives the same slices, so the operator's status is its only
 * memory and a restart changes nothing.
 *
 * <ul>
 *   <li><b>Stable.</b> A node keeps the slice it has for as long as the network is placed on it: a
 *       relabel that keeps it selected, another node joining or leaving, an operator restart change
 *       nothing.
 *   <li><b>Disjoint.</b> No slice is listed for two nodes. A slice is freed only once its node
 *       cannot be holding the network any more ({@code stillHolds} false: the Node is gone, or its
 *       agent has removed the network's file), so a node that joins never gets addresses a node
 *       that left may still give out. Pods still running on a node the network left keep their
 *       addresses (the agent removes the file, not the attachments): drain a node before it stops
 *       matching, or its pods' addresses may be handed out again elsewhere once its slice is freed.
 *   <li><b>Disjoint across revisions.</b> An entry of the current status that is not a slice of
 *       this subnet at this length (another revision's nodeSlices, kept while nodes may still hold
 *       it during a rollout) keeps the slices it overlaps from every other node: a node that gets a
 *       new slice never gets addresses another node still hands out from its old one.
 *   <li><b>Lowest free.</b> A node without a slice gets the lowest free one, nodes in the order
 *       given (by name), so the outcome does not depend on the order events arrived in.
 *   <li><b>Exhausted.</b> When no slice is free, the node gets none and is listed in {@link
 *       Allocation#withoutSlice()}; it does not get the network until a slice is freed (a node
 *       leaves) or the subnet is made larger. Nodes holding slices are never moved to make room.
 *   <li><b>Valid for the spec.</b> An entry of the current status that is not a slice of this
 *       subnet at this length (spec.nodeSlices was edited, the status was edited by hand) or
 *       repeats a node or a slice already taken is dropped, and its node gets a slice again. An
 *       edit of the subnet or the prefix length therefore gives every node a new slice of the new
 *       revision; while nodes may still hold the old revision (its rollout is not complete), the
 *       caller allocates the old nodeSlices too, from the same status, so they keep their old
 *       slices (see NetworkSlices). Pods keep the addresses they have from the old slice until they
 *       go, and those may overlap another node's new slice when the subnets overlap.
 * </ul>
 */
public final class SliceAllocator {

  /** The slices by node name, and the nodes placed now that the subnet had no slice for. */
  public record Allocation(List<NodeSlice> slices, List<String> withoutSlice) {}

  private SliceAllocator() {}

  /**
   * @param current status.slices as it is (entries may be invalid for {@code slicing})
   * @param placed the nodes the network is placed on now, in name order
   * @param stillHolds whether a node no longer placed may still hold the network
   */
  public static Allocation allocate(
      SubnetSlicing slicing,
      List<NodeSlice> current,
      List<String> placed,
      Predicate<String> stillHolds) {
    Set<String> placedNow = new HashSet<>(placed);
    Map<String, Integer> kept = new TreeMap<>();
    BitSet taken = new BitSet(slicing.count());
    for (Entry e : validEntries(slicing, current)) {
      boolean keep = placedNow.contains(e.node()) || stillHolds.test(e.node());
      if (keep && !kept.containsKey(e.node()) && !taken.get(e.index())) {
        kept.put(e.node(), e.index());
        taken.set(e.index());
      }
    }
    Map<Integer, Set<String>> heldElsewhere = heldUnderOtherSlicing(slicing, current);
    List<String> withoutSlice = new ArrayList<>();
    for (String node : placed) {
      if (kept.containsKey(node)) {
        continue;
      }
      int free = taken.nextClearBit(0);
      while (free < slicing.count()
          && !heldElsewhere.getOrDefault(free, Set.of(node)).equals(Set.of(node))) {
        free = taken.nextClearBit(free + 1);
      }
      if (free >= slicing.count()) {
        withoutSlice.add(node);
        continue;
      }
      kept.put(node, free);
      taken.set(free);
    }
    List<NodeSlice> slices = new ArrayList<>();
    kept.forEach(
        (node, index) ->
            slices.add(new NodeSlice().setNode(node).setSlice(slicing.slice(index).toString())));
    return new Allocation(List.copyOf(slices), List.copyOf(withoutSlice));
  }

  private record Entry(String node, int index) {}

  /**
   * For each slice of {@code slicing} that an entry of {@code current} not valid for it overlaps (a
   * slice of another revision's nodeSlices), the nodes of those entries.
   */
  private static Map<Integer, Set<String>> heldUnderOtherSlicing(
      SubnetSlicing slicing, List<NodeSlice> current) {
    Map<Integer, Set<String>> held = new HashMap<>();
    for (NodeSlice s : current == null ? List.<NodeSlice>of() : current) {
      if (s.getNode() == null
          || s.getSlice() == null
          || slicing.indexOf(s.getSlice()).isPresent()) {
        continue;
      }
      slicing
          .overlapping(s.getSlice())
          .ifPresent(
              range -> {
                for (int i = range[0]; i < range[1]; i++) {
                  held.computeIfAbsent(i, k -> new HashSet<>()).add(s.getNode());
                }
              });
    }
    return held;
  }

  /**
   * The entries that name a node and a slice of {@code slicing}, by node name then slice: when a
   * damaged status lists a node or a slice twice, the first of them in this order keeps it.
   */
  private static List<Entry> validEntries(SubnetSlicing slicing, List<NodeSlice> current) {
    List<Entry> entries = new ArrayList<>();
    for (NodeSlice s : current == null ? List.<NodeSlice>of() : current) {
      OptionalInt index = s.getNode() == null ? OptionalInt.empty() : slicing.indexOf(s.getSlice());
      if (index.isPresent()) {
        entries.add(new Entry(s.getNode(), index.getAsInt()));
      }
    }
    entries.sort(Comparator.comparing(Entry::node).thenComparingInt(Entry::index));
    return entries;
  }
}
