package dev.cnioperator.cni.result;

import java.util.Optional;

/**
 * An address with a prefix length ("10.200.0.5/24"), as CNI results carry in {@code ips[].address}
 * and {@code routes[].dst}. Like libcni it keeps the host bits (it is an address <em>in</em> a
 * subnet, not the subnet) and prints the way Go's {@code net.IPNet} does.
 */
public record Cidr(IpAddress address, int prefixLength) {

  public Cidr {
    int max = address.bytes().length * 8;
    if (prefixLength < 0 || prefixLength > max) {
      throw new IllegalArgumentException("prefix length " + prefixLength + " out of 0.." + max);
    }
  }

  /** Parses "address/length" as Go's {@code net.ParseCIDR}; empty for anything else. */
  public static Optional<Cidr> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      return Optional.empty();
    }
    Optional<IpAddress> ip = IpAddress.parse(text.substring(0, slash));
    String length = text.substring(slash + 1);
    // Go's dtoi: one or more ASCII digits (leading zeros allowed), nothing else.
    if (ip.isEmpty() || length.isEmpty() || !length.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty();
    }
    int firstNonZero = 0;
    while (firstNonZero < length.length() - 1 && length.charAt(firstNonZero) == '0') {
      firstNonZero++;
    }
    String significant = length.substring(firstNonZero);
    if (significant.length() > 3) {
      return Optional.empty();
    }
    int bits = Integer.parseInt(significant);
    int max = ip.get().bytes().length * 8;
    return bits > max ? Optional.empty() : Optional.of(new Cidr(ip.get(), bits));
  }

  /** {@code text} in Go's printed form; IllegalArgumentException when it is not a CIDR. */
  static String canonical(String text) {
    return parse(text)
        .map(Cidr::toString)
        .orElseThrow(() -> new IllegalArgumentException("not a CIDR: " + text));
  }

  /** True for IPv4 (including IPv4-mapped IPv6), as libcni derives the 0.4.0 {@code version}. */
  public boolean isIpv4() {
    return address.isIpv4();
  }

  /**
   * Go prints an IPv4-mapped address as IPv4 with the mask's last 32 bits, so "::ffff:10.0.0.1/120"
   * reads back as "10.0.0.1/24".
   */
  @Override
  public String toString() {
    int bits = prefixLength;
    if (address.bytes().length == 16 && address.isIpv4()) {
      bits = Math.max(0, bits - 96);
    }
    return address + "/" + bits;
  }
}
