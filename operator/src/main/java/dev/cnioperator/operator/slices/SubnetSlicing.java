package dev.cnioperator.operator.slices;

import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.ConfigRule;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A valid spec.nodeSlices: the shared subnet and the prefix length of the slices it is cut into,
 * numbered from the lowest address (slice 0) up.
 *
 * <p>Checked here rather than by the API server, whose CIDR functions in CEL arrive in Kubernetes
 * 1.31: the subnet is a CIDR with no host bits; a slice is longer than the subnet (so there are at
 * least two), at most /30 (IPv4) or /126 (IPv6) so host-local has addresses to give, and at most 16
 * bits longer than the subnet (65536 slices), which bounds what the operator keeps in status.
 */
public final class SubnetSlicing {

  /** The most slices one subnet is cut into: 2^16. */
  private static final int MAX_SLICE_BITS = 16;

  private static final int LONGEST_IPV4 = 30;
  private static final int LONGEST_IPV6 = 126;

  /** The rule of every problem found here. */
  private static final ConfigRule RULE = Rule.NODE_SLICES;

  private enum Rule implements ConfigRule {
    NODE_SLICES;

    @Override
    public String id() {
      return "node-slices";
    }
  }

  private final IpNetwork subnet;
  private final int sliceLength;

  private SubnetSlicing(IpNetwork subnet, int sliceLength) {
    this.subnet = subnet;
    this.sliceLength = sliceLength;
  }

  /** {@code declared} when it is valid; empty when it is absent or not valid. */
  public static Optional<SubnetSlicing> of(NodeSlices declared) {
    List<ConfigProblem> problems = new ArrayList<>();
    SubnetSlicing slicing = check(declared, "spec.nodeSlices", problems);
    return Optional.ofNullable(problems.isEmpty() ? slicing : null);
  }

  /**
   * What is wrong with {@code declared} (null: nothing), each problem named under {@code field}.
   */
  public static List<ConfigProblem> problems(NodeSlices declared, String field) {
    List<ConfigProblem> problems = new ArrayList<>();
    check(declared, field, problems);
    return List.copyOf(problems);
  }

  private static SubnetSlicing check(
      NodeSlices declared, String field, List<ConfigProblem> problems) {
    if (declared == null) {
      return null;
    }
    IpNetwork subnet = subnet(declared.getSubnet(), field + ".subnet", problems);
    String lengthField = field + ".prefixLength";
    Integer length = declared.getPrefixLength();
    if (length == null) {
      problems.add(new ConfigProblem(lengthField, RULE, "is required"));
    }
    if (subnet == null || length == null) {
      return null;
    }
    String wrong = wrongLength(subnet, length);
    if (wrong != null) {
      problems.add(new ConfigProblem(lengthField, RULE, length + " " + wrong));
    }
    return new SubnetSlicing(subnet, length);
  }

  /** The subnet {@code text} names, null when it names none; a problem for anything wrong. */
  private static IpNetwork subnet(String text, String field, List<ConfigProblem> problems) {
    if (text == null || text.isBlank()) {
      problems.add(new ConfigProblem(field, RULE, "is required"));
      return null;
    }
    Optional<IpNetwork.Parsed> parsed = IpNetwork.parse(text);
    if (parsed.isEmpty()) {
      problems.add(
          new ConfigProblem(
              field,
              RULE,
              "\""
                  + text
                  + "\" is not a CIDR: write an IPv4 or IPv6 network such as 10.200.16.0/20 or"
                  + " fd00:10::/56"));
      return null;
    }
    IpNetwork subnet = parsed.get().network();
    if (parsed.get().hostBitsSet()) {
      problems.add(
          new ConfigProblem(
              field,
              RULE,
              text + " has host bits set: the subnet it lies in is " + subnet + "; write that"));
    }
    return subnet;
  }

  /** What is wrong with slices of {@code length} in {@code subnet}, after the length; or null. */
  private static String wrongLength(IpNetwork subnet, int length) {
    int longest = subnet.isIpv4() ? LONGEST_IPV4 : LONGEST_IPV6;
    int most = Math.min(longest, subnet.prefixLength() + MAX_SLICE_BITS);
    if (length <= subnet.prefixLength()) {
      return "must be longer than the subnet's /"
          + subnet.prefixLength()
          + ", so that the subnet holds a slice for each node";
    }
    if (length > longest) {
      return "leaves host-local too few addresses on a node: at most "
          + longest
          + " for an "
          + (subnet.isIpv4() ? "IPv4" : "IPv6")
          + " subnet";
    }
    if (length > most) {
      return "cuts "
          + subnet
          + " into 2^"
          + (length - subnet.prefixLength())
          + " slices; at most 2^"
          + MAX_SLICE_BITS
          + " ("
          + (1 << MAX_SLICE_BITS)
          + "), so at most "
          + most
          + " here";
    }
    return null;
  }

  /** How many slices the subnet holds. */
  public int count() {
    return 1 << (sliceLength - subnet.prefixLength());
  }

  /** The slice numbered {@code index}, from 0 (the lowest). */
  IpNetwork slice(int index) {
    BigInteger size = BigInteger.ONE.shiftLeft(subnet.bits() - sliceLength);
    return new IpNetwork(
        subnet.base().add(size.multiply(BigInteger.valueOf(index))), sliceLength, subnet.bits());
  }

  /**
   * The number of the slice {@code text} names: a CIDR of exactly the slice length, with no host
   * bits, inside the subnet; empty for anything else.
   */
  OptionalInt indexOf(String text) {
    Optional<IpNetwork.Parsed> parsed = IpNetwork.parse(text);
    if (parsed.isEmpty() || parsed.get().hostBitsSet()) {
      return OptionalInt.empty();
    }
    IpNetwork slice = parsed.get().network();
    if (slice.prefixLength() != sliceLength || !subnet.contains(slice)) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(
        slice
            .base()
            .subtract(subnet.base())
            .shiftRight(subnet.bits() - sliceLength)
            .intValueExact());
  }

  /**
   * The numbers of the slices {@code text} (a CIDR of any length) shares an address with, as {from,
   * to} (to excluded); empty when it shares none or is no CIDR of this family.
   */
  Optional<int[]> overlapping(String text) {
    Optional<IpNetwork.Parsed> parsed = IpNetwork.parse(text);
    if (parsed.isEmpty() || parsed.get().network().bits() != subnet.bits()) {
      return Optional.empty();
    }
    IpNetwork other = parsed.get().network();
    BigInteger first = other.base().max(subnet.base());
    BigInteger last = other.last().min(subnet.last());
    if (first.compareTo(last) > 0) {
      return Optional.empty();
    }
    int shift = subnet.bits() - sliceLength;
    int from = first.subtract(subnet.base()).shiftRight(shift).intValueExact();
    int to = last.subtract(subnet.base()).shiftRight(shift).intValueExact() + 1;
    return Optional.of(new int[] {from, to});
  }

  /**
   * The first address of slice {@code index} host-local may hand out: the slice's first, or the one
   * after it when that is the subnet's own network address.
   */
  String rangeStart(int index) {
    BigInteger first = slice(index).base();
    return subnet.address(first.equals(subnet.base()) ? first.add(BigInteger.ONE) : first);
  }

  /**
   * The last address of slice {@code index} host-local may hand out: the slice's last, or the one
   * before it when that is the broadcast address of an IPv4 subnet (host-local's own default range
   * leaves out the same two addresses, and IPv6 has no broadcast).
   */
  String rangeEnd(int index) {
    BigInteger last = slice(index).last();
    boolean broadcast = subnet.isIpv4() && last.equals(subnet.last());
    return subnet.address(broadcast ? last.subtract(BigInteger.ONE) : last);
  }

  /** The prefix length of every slice. */
  public int sliceLength() {
    return sliceLength;
  }

  /** The subnet, as a CIDR: "10.200.16.0/20". */
  public String subnetText() {
    return subnet.toString();
  }

  @Override
  public String toString() {
    return subnet + " in /" + sliceLength + " slices";
  }
}
