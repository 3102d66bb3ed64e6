package dev.cnioperator.cni.result;

/**
 * One entry of a result's {@code ips} list: an address in CIDR notation ("10.200.0.5/24"), the
 * subnet's gateway (null when none) and the index into {@code interfaces} (null when not set, as in
 * IPAM results). The 0.3.x/0.4.0 wire field {@code version} is not stored: like libcni, it is
 * derived from the address family when written.
 */
public record IpConfig(String address, String gateway, Integer interfaceIndex) {

  public IpConfig {
    address = Cidr.canonical(address);
    gateway = IpAddress.canonicalOrNull(gateway);
    if (interfaceIndex != null && interfaceIndex < 0) {
      throw new IllegalArgumentException("interface index is negative: " + interfaceIndex);
    }
  }

  /** "4" or "6", the 0.3.x/0.4.0 {@code version} field libcni derives from the address. */
  public String ipVersion() {
    return Cidr.parse(address).orElseThrow().isIpv4() ? "4" : "6";
  }

  /** True when the address is IPv4 (including IPv4-mapped IPv6). */
  public boolean isIpv4() {
    return "4".equals(ipVersion());
  }
}
