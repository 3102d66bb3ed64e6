package dev.cnioperator.cni.result;

/**
 * One entry of a result's {@code routes}: destination in CIDR notation and next hop (null: use the
 * gateway of the matching {@code ips} entry). {@code mtu}, {@code advmss}, {@code priority}, {@code
 * table} and {@code scope} came with 1.1.0 and are null when absent (0 reads as absent for the
 * first three, as in libcni where they are plain ints; table and scope 0 are real values). libcni
 * shares one route type between all versions, so these survive conversion to 0.3.x/0.4.0 as they do
 * there.
 */
public record Route(
    String dst,
    String gw,
    Integer mtu,
    Integer advmss,
    Integer priority,
    Integer table,
    Integer scope) {

  public Route {
    dst = Cidr.canonical(dst);
    gw = IpAddress.canonicalOrNull(gw);
    // libcni holds these as plain ints: 0 means "not set" and is never written.
    mtu = mtu == null || mtu == 0 ? null : mtu;
    advmss = advmss == null || advmss == 0 ? null : advmss;
    priority = priority == null || priority == 0 ? null : priority;
  }

  /** A route with only destination and next hop, as every version before 1.1.0 describes it. */
  public static Route of(String dst, String gw) {
    return new Route(dst, gw, null, null, null, null, null);
  }

  /** True when the destination is IPv4; libcni files 0.2.0 routes under ip4 or ip6 by this. */
  public boolean isIpv4() {
    return Cidr.parse(dst).orElseThrow().isIpv4();
  }
}
