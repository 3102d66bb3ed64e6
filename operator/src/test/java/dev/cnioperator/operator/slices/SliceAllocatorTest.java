package dev.cnioperator.operator.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class SliceAllocatorTest {
  private static final SubnetSlicing FOUR = slicing("10.200.16.0/24", 26);
  private static final Predicate<String> NOTHING_HELD = n -> false;

  private static SubnetSlicing slicing(String subnet, int length) {
    return SubnetSlicing.of(new NodeSlices().setSubnet(subnet).setPrefixLength(length))
        .orElseThrow();
  }

  private static Map<String, String> allocate(
      SubnetSlicing slicing, Map<String, String> current, List<String> placed) {
    return allocate(slicing, current, placed, NOTHING_HELD);
  }

  private static Map<String, String> allocate(
      SubnetSlicing slicing,
      Map<String, String> current,
      List<String> placed,
      Predicate<String> stillHolds) {
    return asMap(SliceAllocator.allocate(slicing, status(current), placed, stillHolds).slices());
  }

  private static List<NodeSlice> status(Map<String, String> slices) {
    List<NodeSlice> list = new ArrayList<>();
    slices.forEach((node, slice) -> list.add(new NodeSlice().setNode(node).setSlice(slice)));
    return list;
  }

  private static Map<String, String> asMap(List<NodeSlice> slices) {
    Map<String, String> map = new LinkedHashMap<>();
    slices.forEach(s -> map.put(s.getNode(), s.getSlice()));
    return map;
  }

  @Test
  void newNodesGetTheLowestFreeSlicesInNameOrderListedByName() {
    SliceAllocator.Allocation a =
        SliceAllocator.allocate(FOUR, List.of(), List.of("a", "b", "c"), NOTHING_HELD);

    assertThat(a.slices())
        .extracting(NodeSlice::getNode, NodeSlice::getSlice)
        .containsExactly(
            tuple("a", "10.200.16.0/26"),
            tuple("b", "10.200.16.64/26"),
            tuple("c", "10.200.16.128/26"));
    assertThat(a.withoutSlice()).isEmpty();
  }

  @Test
  void aNodeKeepsItsSliceWhateverJoinsLeavesOrComesFirst() {
    Map<String, String> before = allocate(FOUR, Map.of(), List.of("b", "d"));
    assertThat(before)
        .containsExactly(Map.entry("b", "10.200.16.0/26"), Map.entry("d", "10.200.16.64/26"));

    // "a" joins and sorts first: it gets the lowest free slice, b and d keep theirs.
    Map<String, String> after = allocate(FOUR, before, List.of("a", "b", "d"));
    assertThat(after)
        .containsExactly(
            Map.entry("a", "10.200.16.128/26"),
            Map.entry("b", "10.200.16.0/26"),
            Map.entry("d", "10.200.16.64/26"));
    // b leaves (holding nothing): a and d do not move into its slice.
    assertThat(allocate(FOUR, after, List.of("a", "d")))
        .containsExactly(Map.entry("a", "10.200.16.128/26"), Map.entry("d", "10.200.16.64/26"));
  }

  @Test
  void aRestartThatReadsTheStatusInAnyOrderDecidesTheSame() {
    Map<String, String> settled = allocate(FOUR, Map.of(), List.of("a", "b", "c"));
    List<NodeSlice> shuffled = status(settled);
    Collections.reverse(shuffled);

    List<NodeSlice> again =
        SliceAllocator.allocate(FOUR, shuffled, List.of("a", "b", "c"), NOTHING_HELD).slices();

    assertThat(asMap(again)).containsExactlyEntriesOf(settled);
    assertThat(again).isEqualTo(status(settled)).as("equal lists: no status write");
  }

  @Test
  void noTwoNodesEverShareASlice() {
    SubnetSlicing many = slicing("10.200.0.0/16", 24);
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      nodes.add(String.format("node-%03d", i));
    }
    Map<String, String> first = allocate(many, Map.of(), nodes);
    // Half leave and others join, twice.
    List<String> next = new ArrayList<>(nodes.subList(0, 100));
    for (int i = 200; i < 300; i++) {
      next.add(String.format("node-%03d", i));
    }
    Map<String, String> second = allocate(many, first, next);

    assertThat(Set.copyOf(first.values())).hasSize(200);
    assertThat(Set.copyOf(second.values())).hasSize(200);
    assertThat(second.keySet()).containsExactlyInAnyOrderElementsOf(next);
    nodes.subList(0, 100).forEach(n -> assertThat(second.get(n)).isEqualTo(first.get(n)));
  }

  @Test
  void aDepartedNodesSliceIsFreedOnlyOnceItHoldsTheNetworkNoMore() {
    Map<String, String> settled = allocate(FOUR, Map.of(), List.of("a", "b", "c", "d"));
    Predicate<String> aStillHolds = "a"::equals;

    // a stops matching; e joins. a's agent has not removed the file yet: e must not get a's slice.
    SliceAllocator.Allocation waiting =
        SliceAllocator.allocate(FOUR, status(settled), List.of("b", "c", "d", "e"), aStillHolds);
    assertThat(asMap(waiting.slices())).containsEntry("a", "10.200.16.0/26").doesNotContainKey("e");
    assertThat(waiting.withoutSlice()).containsExactly("e");

    // a's agent reported the network removed (or the Node is gone): e gets the slice a held.
    Map<String, String> released =
        allocate(FOUR, asMap(waiting.slices()), List.of("b", "c", "d", "e"), NOTHING_HELD);
    assertThat(released).doesNotContainKey("a").containsEntry("e", "10.200.16.0/26");
  }

  @Test
  void whenEverySliceIsHeldANewNodeGetsNoneAndNoOneIsMoved() {
    Map<String, String> full = allocate(FOUR, Map.of(), List.of("a", "b", "c", "d"));

    SliceAllocator.Allocation a =
        SliceAllocator.allocate(
            FOUR, status(full), List.of("a", "b", "c", "d", "e", "f"), NOTHING_HELD);

    assertThat(asMap(a.slices())).containsExactlyEntriesOf(full);
    assertThat(a.withoutSlice()).containsExactly("e", "f");
    assertThat(
            SliceOfNode.of(
                new NodeSlices().setSubnet("10.200.16.0/24").setPrefixLength(26), a.slices(), "e"))
        .isEqualTo(
            new SliceOfNode.Lacking(
                "no free /26 slice left in 10.200.16.0/24: all 4 are held by other nodes"));
  }

  @Test
  void ipv6SlicesAreCutTheSameWay() {
    SubnetSlicing v6 = slicing("fd00:10::/56", 64);

    assertThat(allocate(v6, Map.of("b", "fd00:10::/64"), List.of("a", "b", "c")))
        .containsExactly(
            Map.entry("a", "fd00:10:0:1::/64"),
            Map.entry("b", "fd00:10::/64"),
            Map.entry("c", "fd00:10:0:2::/64"));
  }

  @Test
  void entriesThatAreNoSliceOfThisSubnetAreDroppedAndTheirNodesServedAgain() {
    Map<String, String> damaged = new LinkedHashMap<>();
    damaged.put("a", "10.200.99.0/26"); // outside the subnet
    damaged.put("b", "10.200.16.65/26"); // host bits
    damaged.put("c", "not a cidr");
    damaged.put("d", "10.200.16.192/26"); // valid, kept

    assertThat(allocate(FOUR, damaged, List.of("a", "b", "c", "d")))
        .containsExactly(
            Map.entry("a", "10.200.16.0/26"),
            Map.entry("b", "10.200.16.64/26"),
            Map.entry("c", "10.200.16.128/26"),
            Map.entry("d", "10.200.16.192/26"));
  }

  @Test
  void aSliceOrANodeListedTwiceIsKeptOnceByTheFirstNodeName() {
    List<NodeSlice> twice =
        List.of(
            new NodeSlice().setNode("b").setSlice("10.200.16.64/26"),
            new NodeSlice().setNode("a").setSlice("10.200.16.64/26"),
            new NodeSlice().setNode("c").setSlice("10.200.16.128/26"),
            new NodeSlice().setNode("c").setSlice("10.200.16.0/26"),
            new NodeSlice().setNode(null).setSlice("10.200.16.192/26"));

    assertThat(
            asMap(
                SliceAllocator.allocate(FOUR, twice, List.of("a", "b", "c"), NOTHING_HELD)
                    .slices()))
        .containsExactly(
            Map.entry("a", "10.200.16.64/26"),
            Map.entry("b", "10.200.16.128/26"),
            Map.entry("c", "10.200.16.0/26"));
  }

  @Test
  void anEditOfThePrefixLengthCutsEveryNodeANewSlice() {
    Map<String, String> at26 = allocate(FOUR, Map.of(), List.of("a", "b"));

    Map<String, String> at27 = allocate(slicing("10.200.16.0/24", 27), at26, List.of("a", "b"));

    assertThat(at27)
        .as("b's new slice is not in a's old one, which a may still hand out from")
        .containsExactly(Map.entry("a", "10.200.16.0/27"), Map.entry("b", "10.200.16.64/27"));
  }

  @Test
  void anEditOfTheSubnetDropsEvenTheSlicesOfNodesThatStillHoldTheNetwork() {
    Map<String, String> old = allocate(FOUR, Map.of(), List.of("a", "b"));

    Map<String, String> moved =
        allocate(slicing("10.200.17.0/24", 26), old, List.of("b"), n -> true);

    assertThat(moved).containsExactly(Map.entry("b", "10.200.17.0/26"));
  }

  @Test
  void aNewSliceNeverOverlapsAnotherNodesSliceOfAnotherRevision() {
    // The old revision cut the same /24 into /26 slices; the new one cuts it into /27 slices.
    Map<String, String> old = new LinkedHashMap<>();
    old.put("a", "10.200.16.0/26");
    old.put("b", "10.200.16.64/26");
    old.put("c", "10.200.16.128/26");

    Map<String, String> next = allocate(slicing("10.200.16.0/24", 27), old, List.of("a", "b", "c"));

    assertThat(next)
        .as("each node's new slice lies in its own old one, never in another node's")
        .containsExactly(
            Map.entry("a", "10.200.16.0/27"),
            Map.entry("b", "10.200.16.64/27"),
            Map.entry("c", "10.200.16.128/27"));
    assertThat(allocate(slicing("10.200.16.0/24", 27), old, List.of("a", "b", "c", "d")))
        .as("a node that holds no old slice gets a slice no old one overlaps")
        .containsEntry("d", "10.200.16.192/27");
  }
}
