package dev.cnioperator.operator.slices;

import dev.cnioperator.cni.result.Cidr;
import dev.cnioperator.cni.result.IpAddress;
import java.math.BigInteger;
import java.util.Optional;

/**
 * An IPv4 or IPv6 network as a number: its first address ({@code base}), its prefix length and the
 * width of its family in bits; printed as Go's {@code net.IPNet} prints it, which is what
 * host-local reads back.
 */
record IpNetwork(BigInteger base, int prefixLength, int bits) {

  /** A network parsed from text, and whether the text set host bits (10.0.0.5/24). */
  record Parsed(IpNetwork network, boolean hostBitsSet) {}

  /**
   * Parses "address/length" as Go's {@code net.ParseCIDR} does (no name resolution, ever); empty
   * for anything else, and for an IPv4-mapped IPv6 address, which host-local would read as IPv4.
   */
  static Optional<Parsed> parse(String text) {
    Optional<Cidr> cidr = Cidr.parse(text);
    if (cidr.isEmpty()) {
      return Optional.empty();
    }
    byte[] bytes = cidr.get().address().bytes();
    if (bytes.length == 16 && cidr.get().isIpv4()) {
      return Optional.empty();
    }
    int bits = bytes.length * 8;
    BigInteger address = new BigInteger(1, bytes);
    IpNetwork network = new IpNetwork(BigInteger.ZERO, cidr.get().prefixLength(), bits);
    BigInteger base = address.andNot(network.size().subtract(BigInteger.ONE));
    return Optional.of(new Parsed(network.withBase(base), !base.equals(address)));
  }

  boolean isIpv4() {
    return bits == 32;
  }

  /** How many addresses it holds. */
  BigInteger size() {
    return BigInteger.ONE.shiftLeft(bits - prefixLength);
  }

  /** Its last address. */
  BigInteger last() {
    return base.add(size()).subtract(BigInteger.ONE);
  }

  /** Whether {@code other} lies wholly inside this network (it may be the network itself). */
  boolean contains(IpNetwork other) {
    return bits == other.bits
        && other.prefixLength >= prefixLength
        && other.base.compareTo(base) >= 0
        && other.last().compareTo(last()) <= 0;
  }

  /** {@code value} of this family as an address, printed as Go prints it. */
  String address(BigInteger value) {
    byte[] raw = value.toByteArray();
    byte[] bytes = new byte[bits / 8];
    // toByteArray is big-endian and minimal, with a leading sign byte when the top bit is set.
    int copied = Math.min(raw.length, bytes.length);
    System.arraycopy(raw, raw.length - copied, bytes, bytes.length - copied, copied);
    return new IpAddress(bytes).toString();
  }

  private IpNetwork withBase(BigInteger newBase) {
    return new IpNetwork(newBase, prefixLength, bits);
  }

  @Override
  public String toString() {
    return address(base) + "/" + prefixLength;
  }
}
