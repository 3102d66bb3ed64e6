package dev.cnioperator.cni.result;

import java.util.Optional;

/**
 * An IP address read from a CNI result, parsed and printed the way libcni (Go's {@code net}
 * package) does, so that a converted result carries the same text libcni would write.
 *
 * <p>Parsing is purely textual: no name resolution ever happens, unlike {@code InetAddress}. An
 * IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) counts as IPv4, as Go's {@code To4()} says.
 */
public record IpAddress(byte[] bytes) {

  private static final int IPV4_LEN = 4;
  private static final int IPV6_LEN = 16;

  public IpAddress {
    if (bytes.length != IPV4_LEN && bytes.length != IPV6_LEN) {
      throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + bytes.length);
    }
    bytes = bytes.clone();
  }

  @Override
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Parses an IPv4 dotted quad or an IPv6 address without zone; empty for anything else. */
  public static Optional<IpAddress> parse(String text) {
    if (text == null || text.isEmpty()) {
      return Optional.empty();
    }
    byte[] parsed = text.indexOf(':') >= 0 ? parseIpv6(text) : parseIpv4(text);
    return parsed == null ? Optional.empty() : Optional.of(new IpAddress(parsed));
  }

  /** {@code text} in Go's printed form, null for null; IllegalArgumentException if not an IP. */
  static String canonicalOrNull(String text) {
    if (text == null) {
      return null;
    }
    return parse(text)
        .map(IpAddress::toString)
        .orElseThrow(() -> new IllegalArgumentException("not an IP address: " + text));
  }

  /** True for IPv4 addresses, including IPv4-mapped IPv6 ones (Go's {@code To4() != nil}). */
  public boolean isIpv4() {
    return ipv4Bytes() != null;
  }

  /** The CNI 0.3.x/0.4.0 {@code version} value for this address: "4" or "6". */
  public String family() {
    return isIpv4() ? "4" : "6";
  }

  /** The address as Go prints it: dotted quad for IPv4, RFC 5952 for IPv6. */
  @Override
  public String toString() {
    byte[] v4 = ipv4Bytes();
    if (v4 != null) {
      return (v4[0] & 0xff) + "." + (v4[1] & 0xff) + "." + (v4[2] & 0xff) + "." + (v4[3] & 0xff);
    }
    return formatIpv6(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IpAddress other && java.util.Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(bytes);
  }

  /** The four IPv4 bytes, or null when this is a real IPv6 address. */
  byte[] ipv4Bytes() {
    if (bytes.length == IPV4_LEN) {
      return bytes;
    }
    for (int i = 0; i < 10; i++) {
      if (bytes[i] != 0) {
        return null;
      }
    }
    if (bytes[10] != (byte) 0xff || bytes[11] != (byte) 0xff) {
      return null;
    }
    return new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]};
  }

  /** Go (netip) rules: exactly four decimal fields 0-255, no leading zeros. */
  private static byte[] parseIpv4(String text) {
    String[] fields = text.split("\\.", -1);
    if (fields.length != 4) {
      return null;
    }
    byte[] out = new byte[IPV4_LEN];
    for (int i = 0; i < 4; i++) {
      Integer octet = parseOctet(fields[i]);
      if (octet == null) {
        return null;
      }
      out[i] = (byte) (int) octet;
    }
    return out;
  }

  private static Integer parseOctet(String field) {
    if (field.isEmpty() || field.length() > 3 || (field.length() > 1 && field.charAt(0) == '0')) {
      return null;
    }
    int value = 0;
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c < '0' || c > '9') {
        return null;
      }
      value = value * 10 + (c - '0');
    }
    return value > 255 ? null : value;
  }

  /** RFC 4291 text: hex groups of 1-4 digits, one "::", an optional trailing dotted quad. */
  private static byte[] parseIpv6(String text) {
    int ellipsis = text.indexOf("::");
    if (ellipsis >= 0 && text.indexOf("::", ellipsis + 1) >= 0) {
      return null;
    }
    String head = ellipsis >= 0 ? text.substring(0, ellipsis) : text;
    String tail = ellipsis >= 0 ? text.substring(ellipsis + 2) : "";
    byte[] headBytes = parseGroups(head, ellipsis < 0);
    byte[] tailBytes = parseGroups(tail, true);
    if (headBytes == null || tailBytes == null) {
      return null;
    }
    int used = headBytes.length + tailBytes.length;
    if (ellipsis < 0 ? used != IPV6_LEN : used > IPV6_LEN - 2) {
      return null;
    }
    byte[] out = new byte[IPV6_LEN];
    System.arraycopy(headBytes, 0, out, 0, headBytes.length);
    System.arraycopy(tailBytes, 0, out, IPV6_LEN - tailBytes.length, tailBytes.length);
    return out;
  }

  /** Colon-separated groups; when {@code last}, the final group may be a dotted quad. */
  private static byte[] parseGroups(String text, boolean last) {
    if (text.isEmpty()) {
      return new byte[0];
    }
    String[] groups = text.split(":", -1);
    byte[] out = new byte[groups.length * 2 + 2];
    int n = 0;
    for (int i = 0; i < groups.length; i++) {
      String g = groups[i];
      if (last && i == groups.length - 1 && g.contains(".")) {
        byte[] v4 = parseIpv4(g);
        if (v4 == null) {
          return null;
        }
        System.arraycopy(v4, 0, out, n, 4);
        n += 4;
        continue;
      }
      if (g.isEmpty() || g.length() > 4) {
        return null;
      }
      int value = 0;
      for (int k = 0; k < g.length(); k++) {
        int digit = Character.digit(g.charAt(k), 16);
        if (digit < 0) {
          return null;
        }
        value = value * 16 + digit;
      }
      out[n++] = (byte) (value >> 8);
      out[n++] = (byte) value;
    }
    return java.util.Arrays.copyOf(out, n);
  }

  /** RFC 5952: lower case, the first longest run of two or more zero groups becomes "::". */
  private static String formatIpv6(byte[] b) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }
}
