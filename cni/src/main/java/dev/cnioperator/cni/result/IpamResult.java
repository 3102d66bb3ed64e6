package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.List;

/**
 * The abbreviated result of a delegated IPAM plugin (SPEC-1.1.0.md, Section 5 "Delegated plugins
 * (IPAM)"): ips without an interface index, routes and dns, and no interfaces.
 */
public record IpamResult(CniVersion cniVersion, List<IpConfig> ips, List<Route> routes, Dns dns) {

  public IpamResult {
    ips = ips.stream().map(ip -> ip.interfaceIndex() == null ? ip : unbound(ip)).toList();
    routes = List.copyOf(routes);
    dns = dns == null ? Dns.EMPTY : dns;
  }

  /**
   * An IPAM plugin's stdout. Read like any result (libcni uses one result type for both); stray
   * {@code interfaces} and interface indexes, which the spec says an IPAM result omits, are dropped
   * rather than refused.
   */
  public static IpamResult parse(byte[] stdout, CniVersion expected) {
    return from(Results.parse(stdout, expected));
  }

  /** The IPAM part of any result. */
  public static IpamResult from(Result result) {
    return new IpamResult(result.cniVersion(), result.ips(), result.routes(), result.dns());
  }

  /** This IPAM result as a full result of its version (no interfaces). */
  public Result toResult() {
    if (ips.isEmpty() && ResultShape.of(cniVersion).orElse(null) == ResultShape.V020) {
      // Converting would refuse (0.2.0 needs an address), but an empty 0.2.0 result is valid.
      return Result020.of(cniVersion, null, null, dns);
    }
    return ResultConverter.convert(
        Result100.of(CniVersion.V1_1_0, List.of(), ips, routes, dns), cniVersion);
  }

  /** The wire form an IPAM plugin prints for {@link #cniVersion()}. */
  public ObjectNode toJson() {
    return toResult().toJson();
  }

  private static IpConfig unbound(IpConfig ip) {
    return new IpConfig(ip.address(), ip.gateway(), null);
  }
}
