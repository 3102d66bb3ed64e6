package dev.cnioperator.operator.slices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.cni.config.ConfigProblem;
import java.util.List;
import org.junit.jupiter.api.Test;

class SubnetSlicingTest {

  private static NodeSlices slices(String subnet, Integer length) {
    return new NodeSlices().setSubnet(subnet).setPrefixLength(length);
  }

  private static SubnetSlicing valid(String subnet, int length) {
    return SubnetSlicing.of(slices(subnet, length)).orElseThrow();
  }

  private static String problem(String subnet, Integer length) {
    List<ConfigProblem> problems =
        SubnetSlicing.problems(slices(subnet, length), "spec.nodeSlices");
    assertThat(problems).hasSize(1);
    assertThat(SubnetSlicing.of(slices(subnet, length))).isEmpty();
    return problems.get(0).path() + ": " + problems.get(0).message();
  }

  @Test
  void anIpv4SubnetIsCutIntoNumberedSlicesFromTheLowest() {
    SubnetSlicing s = valid("10.200.16.0/20", 26);

    assertThat(s.count()).isEqualTo(64);
    assertThat(s.slice(0)).hasToString("10.200.16.0/26");
    assertThat(s.slice(1)).hasToString("10.200.16.64/26");
    assertThat(s.slice(63)).hasToString("10.200.31.192/26");
    assertThat(s.indexOf("10.200.16.64/26")).hasValue(1);
    assertThat(s.indexOf("10.200.31.192/26")).hasValue(63);
  }

  @Test
  void rangesLeaveOutTheSubnetsNetworkAndBroadcastAddressesOnly() {
    SubnetSlicing s = valid("10.200.16.0/20", 26);

    assertThat(List.of(s.rangeStart(0), s.rangeEnd(0)))
        .containsExactly("10.200.16.1", "10.200.16.63");
    assertThat(List.of(s.rangeStart(1), s.rangeEnd(1)))
        .as("a slice inside the subnet is whole: its own first and last addresses are hosts")
        .containsExactly("10.200.16.64", "10.200.16.127");
    assertThat(List.of(s.rangeStart(63), s.rangeEnd(63)))
        .containsExactly("10.200.31.192", "10.200.31.254");
  }

  @Test
  void ipv6HasNoBroadcastSoTheLastSliceRunsToTheEnd() {
    SubnetSlicing s = valid("fd00:10::/56", 64);

    assertThat(s.count()).isEqualTo(256);
    assertThat(s.slice(1)).hasToString("fd00:10:0:1::/64");
    assertThat(List.of(s.rangeStart(0), s.rangeEnd(0)))
        .containsExactly("fd00:10::1", "fd00:10::ffff:ffff:ffff:ffff");
    assertThat(List.of(s.rangeStart(255), s.rangeEnd(255)))
        .containsExactly("fd00:10:0:ff::", "fd00:10:0:ff:ffff:ffff:ffff:ffff");
    assertThat(s.indexOf("fd00:10:0:ff::/64")).hasValue(255);
  }

  @Test
  void onlyASliceOfThisSubnetAtThisLengthHasANumber() {
    SubnetSlicing s = valid("10.200.16.0/20", 26);

    assertThat(s.indexOf("10.200.16.64/27")).as("another length").isEmpty();
    assertThat(s.indexOf("10.200.16.65/26")).as("host bits").isEmpty();
    assertThat(s.indexOf("10.200.32.0/26")).as("outside the subnet").isEmpty();
    assertThat(s.indexOf("fd00::/26")).as("another family").isEmpty();
    assertThat(s.indexOf("garbage")).isEmpty();
    assertThat(s.indexOf(null)).isEmpty();
  }

  @Test
  void theSubnetMustBeACidrWithoutHostBits() {
    assertThat(problem("10.200.16.0", 26))
        .isEqualTo(
            "spec.nodeSlices.subnet: \"10.200.16.0\" is not a CIDR: write an IPv4 or IPv6 network"
                + " such as 10.200.16.0/20 or fd00:10::/56");
    assertThat(problem("10.200.16.0/33", 26)).startsWith("spec.nodeSlices.subnet: ");
    assertThat(problem("::ffff:10.200.16.0/116", 120))
        .as("IPv4-mapped, which host-local reads as IPv4")
        .contains("is not a CIDR");
    assertThat(problem("10.200.17.0/20", 26))
        .isEqualTo(
            "spec.nodeSlices.subnet: 10.200.17.0/20 has host bits set: the subnet it lies in is"
                + " 10.200.16.0/20; write that");
  }

  @Test
  void aSliceIsLongerThanTheSubnetAndLeavesHostLocalAddresses() {
    assertThat(problem("10.200.16.0/20", 20))
        .isEqualTo(
            "spec.nodeSlices.prefixLength: 20 must be longer than the subnet's /20, so that the"
                + " subnet holds a slice for each node");
    assertThat(problem("10.200.16.0/24", 31))
        .isEqualTo(
            "spec.nodeSlices.prefixLength: 31 leaves host-local too few addresses on a node: at"
                + " most 30 for an IPv4 subnet");
    assertThat(problem("fd00:10::/120", 127)).contains("at most 126 for an IPv6 subnet");
    assertThat(SubnetSlicing.of(slices("10.200.16.0/24", 30))).isPresent();
    assertThat(SubnetSlicing.of(slices("fd00:10::/120", 126))).isPresent();
  }

  @Test
  void aSubnetIsCutIntoAtMost65536Slices() {
    assertThat(problem("10.0.0.0/8", 25))
        .isEqualTo(
            "spec.nodeSlices.prefixLength: 25 cuts 10.0.0.0/8 into 2^17 slices; at most 2^16"
                + " (65536), so at most 24 here");
    assertThat(valid("10.0.0.0/8", 24).count()).isEqualTo(65536);
    assertThat(problem("fd00::/48", 65)).contains("at most 64 here");
  }

  @Test
  void missingFieldsAreNamedAndNothingDeclaredIsNoProblem() {
    assertThat(problem(null, 26)).isEqualTo("spec.nodeSlices.subnet: is required");
    assertThat(problem("10.200.16.0/20", null))
        .isEqualTo("spec.nodeSlices.prefixLength: is required");
    assertThat(SubnetSlicing.problems(null, "spec.nodeSlices")).isEmpty();
    assertThat(SubnetSlicing.of(null)).isEmpty();
  }

  @Test
  void aNodeReadsItsSliceFromTheStatusOrWhyItHasNone() {
    NodeSlices declared = slices("10.200.16.0/25", 26);
    List<NodeSlice> both =
        List.of(
            new NodeSlice().setNode("a").setSlice("10.200.16.0/26"),
            new NodeSlice().setNode("b").setSlice("10.200.16.64/26"));

    assertThat(SliceOfNode.of(declared, both, "b"))
        .isEqualTo(new SliceOfNode.Assigned("10.200.16.64/26", "10.200.16.64", "10.200.16.126"));
    assertThat(SliceOfNode.of(declared, both.subList(0, 1), "c"))
        .isEqualTo(new SliceOfNode.Lacking("waiting for a slice of 10.200.16.0/25"));
    assertThat(SliceOfNode.of(declared, both, "c"))
        .isEqualTo(
            new SliceOfNode.Lacking(
                "no free /26 slice left in 10.200.16.0/25: all 2 are held by other nodes"));
    assertThat(SliceOfNode.of(slices("10.200.16.0/25", 27), both, "a"))
        .as("a slice of another length is not this revision's")
        .isEqualTo(new SliceOfNode.Lacking("waiting for a slice of 10.200.16.0/25"));
    assertThat(SliceOfNode.of(null, both, "a")).isInstanceOf(SliceOfNode.Undeclared.class);
  }

  @Test
  void slicesIndexedByNodeAnswerAsReadingTheListInOrder() {
    NodeSlices declared = slices("10.200.16.0/25", 26);
    List<NodeSlice> listed =
        List.of(
            new NodeSlice().setNode("a").setSlice("10.200.17.0/26"),
            new NodeSlice().setNode("a").setSlice("10.200.16.64/26"),
            new NodeSlice().setNode("b").setSlice("10.200.16.0/26"),
            new NodeSlice().setNode("b").setSlice("10.200.16.64/26"));
    SlicesByNode byNode = SlicesByNode.of(declared, listed);

    assertThat(byNode.of("a"))
        .as("a's first slice of this subnet; the one outside it is skipped")
        .isEqualTo(new SliceOfNode.Assigned("10.200.16.64/26", "10.200.16.64", "10.200.16.126"));
    assertThat(byNode.of("b"))
        .as("b's first")
        .isEqualTo(new SliceOfNode.Assigned("10.200.16.0/26", "10.200.16.1", "10.200.16.63"));
    for (String node : List.of("a", "b", "c")) {
      assertThat(byNode.of(node)).as(node).isEqualTo(SliceOfNode.of(declared, listed, node));
    }
    assertThat(byNode.of("c"))
        .isEqualTo(
            new SliceOfNode.Lacking(
                "no free /26 slice left in 10.200.16.0/25: all 2 are held by other nodes"));
    assertThat(SlicesByNode.of(slices("10.200.16.0/33", 26), listed).of("a"))
        .isEqualTo(new SliceOfNode.Lacking("this revision's nodeSlices are not valid"));
  }
}
