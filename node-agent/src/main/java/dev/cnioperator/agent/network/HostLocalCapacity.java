package dev.cnioperator.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many addresses a network whose IPAM is the reference plugin {@code host-local} can hand out
 * on a node, and how many of those are still free: what the agent publishes to the scheduler.
 *
 * <p>It follows host-local's own reading of its configuration (containernetworking/plugins, {@code
 * plugins/ipam/host-local}):
 *
 * <ul>
 *   <li>The range sets are {@code ranges}, preceded by the legacy top-level range ({@code subnet},
 *       {@code rangeStart}, {@code rangeEnd}, {@code gateway}) as one more set of one range when
 *       {@code subnet} is given ({@code LoadIPAMConfig} in {@code backend/allocator/config.go});
 *       none at all is an error there.
 *   <li>A range's subnet must have no host bits set and hold at least four addresses (IPv4 /30,
 *       IPv6 /126): a /31 or /32 (/127, /128) is "too small to allocate from". {@code rangeStart}
 *       defaults to the network address + 1, {@code rangeEnd} to the subnet's last address, less
 *       one for IPv4 (the broadcast); both, when given, must lie in the subnet, the end not before
 *       the start. The gateway defaults to the network address + 1 ({@code Range.Canonicalize} and
 *       {@code lastIP} in {@code range.go}).
 *   <li>A range set must not be empty, mix address families or hold overlapping ranges ({@code
 *       RangeSet.Canonicalize} in {@code range_set.go}); range sets must not overlap each other
 *       ({@code LoadIPAMConfig}).
 *   <li>Addresses go out from {@code [rangeStart, rangeEnd]}, inclusive, except the range's
 *       gateway, which the iterator skips and a request for is refused ({@code RangeIter.Next} and
 *       {@code IPAllocator.Get} in {@code allocator.go}); IPv4 and IPv6 alike.
 *   <li>Each ADD takes one address from every range set, and fails when any set has none left
 *       ({@code cmdAdd} in {@code main.go}).
 * </ul>
 *
 * <p>A configuration host-local would refuse, or one this cannot read (a {@code $(node.x)}
 * placeholder, a value that is not an address), gives no count: unknown, never guessed. Ranges a
 * runtime passes through the {@code ipRanges} capability are not in the {@code ipam} object and so
 * not counted.
 */
public final class HostLocalCapacity {
  private static final String OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
  private static final Pattern IPV4 = Pattern.compile("(?:" + OCTET + "\\.){3}" + OCTET);

  /**
   * Text InetAddress takes as an IPv6 literal, never as a hostname: it starts with a hex digit or
   * ':' and holds a ':' (checked apart); no zone, no brackets.
   */
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:][0-9A-Fa-f:.]*");

  private static final Pattern CIDR = Pattern.compile("([^/]+)/([0-9]{1,3})");
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private HostLocalCapacity() {}

  /**
   * A network's capacity on one node, in attachments.
   *
   * @param usable how many attachments the network can hold when nothing is reserved: the smallest
   *     of its range sets' sizes, since each attachment takes an address from every set; saturated
   *     at {@link Long#MAX_VALUE}
   * @param free how many more it can take given the reservations, never below 0; saturated alike
   */
  public record Count(long usable, long free) {}

  /**
   * Counts the addresses of a host-local {@code ipam} object.
   *
   * @param ipam the plugin's {@code ipam} object from the conflist
   * @param reservedAddresses the addresses host-local has reserved for the network, as it names
   *     their files ({@code 10.1.0.5}, {@code fd00::5}); ones that are not an address, or lie in no
   *     range, are ignored, and each address counts once however it is spelled
   * @return the count, or empty when the ipam object is not one whose size this can know
   */
  public static Optional<Count> of(JsonNode ipam, Collection<String> reservedAddresses) {
    if (ipam == null || !ipam.isObject() || !"host-local".equals(ipam.path("type").textValue())) {
      return Optional.empty();
    }
    List<List<Range>> sets;
    try {
      sets = rangeSets(ipam);
    } catch (Unknown e) {
      return Optional.empty();
    }
    Set<Address> reserved = new HashSet<>();
    if (reservedAddresses != null) {
      for (String text : reservedAddresses) {
        address(text).ifPresent(reserved::add);
      }
    }
    BigInteger usable = null;
    BigInteger free = null;
    for (List<Range> set : sets) {
      BigInteger setUsable = BigInteger.ZERO;
      for (Range r : set) {
        setUsable = setUsable.add(r.size());
      }
      long taken = reserved.stream().filter(a -> set.stream().anyMatch(r -> r.hands(a))).count();
      BigInteger setFree = setUsable.subtract(BigInteger.valueOf(taken)).max(BigInteger.ZERO);
      usable = usable == null ? setUsable : usable.min(setUsable);
      free = free == null ? setFree : free.min(setFree);
    }
    return Optional.of(new Count(saturate(usable), saturate(free)));
  }

  /** The legacy range (as a set of one), then {@code ranges}. */
  private static List<List<Range>> rangeSets(JsonNode ipam) {
    List<List<Range>> sets = new ArrayList<>();
    if (present(ipam.get("subnet"))) {
      sets.add(List.of(range(ipam)));
    }
    JsonNode ranges = ipam.get("ranges");
    if (present(ranges)) {
      if (!ranges.isArray()) {
        throw new Unknown();
      }
      for (JsonNode set : ranges) {
        if (!set.isArray() || set.isEmpty()) {
          throw new Unknown();
        }
        List<Range> parsed = new ArrayList<>();
        for (JsonNode r : set) {
          parsed.add(range(r));
        }
        if (parsed.stream().map(Range::bits).distinct().count() > 1) {
          throw new Unknown(); // mixed address families in one set
        }
        sets.add(parsed);
      }
    }
    if (sets.isEmpty()) {
      throw new Unknown(); // no IP ranges specified
    }
    // Ranges overlapping inside a set or across sets: host-local refuses either.
    List<Range> all = sets.stream().flatMap(List::stream).toList();
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        if (all.get(i).overlaps(all.get(j))) {
          throw new Unknown();
        }
      }
    }
    return sets;
  }

  /** One range with host-local's defaults filled in. */
  private static Range range(JsonNode node) {
    if (!node.isObject()) {
      throw new Unknown();
    }
    Matcher cidr = CIDR.matcher(text(node.get("subnet")));
    if (!cidr.matches()) {
      throw new Unknown();
    }
    Address base = address(cidr.group(1)).orElseThrow(Unknown::new);
    int bits = base.bits();
    int prefix = Integer.parseInt(cidr.group(2));
    if (prefix > bits - 2) {
      throw new Unknown(); // too small to allocate from: /31, /32 (/127, /128)
    }
    BigInteger hostMask = BigInteger.ONE.shiftLeft(bits - prefix).subtract(BigInteger.ONE);
    BigInteger network = base.value();
    if (network.and(hostMask).signum() != 0) {
      throw new Unknown(); // host bits set
    }
    BigInteger last = network.or(hostMask);
    Address first = new Address(bits, network.add(BigInteger.ONE));

    Address gateway = optionalAddress(node.get("gateway")).orElse(first);
    BigInteger start =
        sameFamily(optionalAddress(node.get("rangeStart")), bits).orElse(first.value());
    BigInteger end =
        sameFamily(optionalAddress(node.get("rangeEnd")), bits)
            .orElse(bits == 32 ? last.subtract(BigInteger.ONE) : last);
    if (start.compareTo(network) < 0 || end.compareTo(last) > 0 || start.compareTo(end) > 0) {
      throw new Unknown(); // outside the subnet, or reversed
    }
    return new Range(bits, start, end, gateway);
  }

  /** An optional address field: empty when absent or null; unknown when not an address. */
  private static Optional<Address> optionalAddress(JsonNode node) {
    if (!present(node)) {
      return Optional.empty();
    }
    return Optional.of(address(text(node)).orElseThrow(Unknown::new));
  }

  /** The value of an address of the family of {@code bits}; unknown when of the other family. */
  private static Optional<BigInteger> sameFamily(Optional<Address> a, int bits) {
    if (a.isPresent() && a.get().bits() != bits) {
      throw new Unknown();
    }
    return a.map(Address::value);
  }

  private static String text(JsonNode node) {
    if (node == null || !node.isTextual()) {
      throw new Unknown();
    }
    return node.textValue();
  }

  private static boolean present(JsonNode node) {
    return node != null && !node.isNull();
  }

  /**
   * An IP literal, an IPv4-mapped IPv6 one taken as IPv4 as host-local canonicalizes it; empty for
   * anything else. InetAddress sees only text that is a literal, so it never looks a name up.
   */
  private static Optional<Address> address(String text) {
    if (text == null
        || !(IPV4.matcher(text).matches()
            || (text.indexOf(':') >= 0 && IPV6.matcher(text).matches()))) {
      return Optional.empty();
    }
    try {
      byte[] bytes = InetAddress.getByName(text).getAddress();
      return Optional.of(new Address(bytes.length * 8, new BigInteger(1, bytes)));
    } catch (UnknownHostException e) {
      return Optional.empty(); // a malformed IPv6 literal
    }
  }

  private static long saturate(BigInteger n) {
    return n.min(LONG_MAX).longValueExact();
  }

  /** A configuration whose count cannot be known: caught in {@link #of}, never thrown out. */
  private static final class Unknown extends RuntimeException {
    Unknown() {
      super(null, null, false, false);
    }
  }

  /** An address: 32 bits for IPv4, 128 for IPv6, and its value. */
  private record Address(int bits, BigInteger value) {}

  /** A canonical range: {@code [start, end]} of one family, and its gateway (of any family). */
  private record Range(int bits, BigInteger start, BigInteger end, Address gateway) {
    /** Whether host-local can hand {@code a} out from this range. */
    boolean hands(Address a) {
      return within(a) && !a.equals(gateway);
    }

    private boolean within(Address a) {
      return a.bits() == bits && a.value().compareTo(start) >= 0 && a.value().compareTo(end) <= 0;
    }

    /** How many addresses host-local can hand out from this range. */
    BigInteger size() {
      BigInteger size = end.subtract(start).add(BigInteger.ONE);
      return within(gateway) ? size.subtract(BigInteger.ONE) : size;
    }

    boolean overlaps(Range o) {
      return bits == o.bits && start.compareTo(o.end) <= 0 && o.start.compareTo(end) <= 0;
    }
  }
}
