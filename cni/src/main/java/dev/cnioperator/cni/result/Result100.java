package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.List;

/**
 * A result in the current shape, versions 1.0.0 and 1.1.0 (libcni's {@code types100}: one type for
 * both, since 1.1.0 only added optional fields). {@code raw} is the JSON it was read from, or null
 * for a result built in code or by conversion.
 */
public record Result100(
    CniVersion cniVersion,
    List<Interface> interfaces,
    List<IpConfig> ips,
    List<Route> routes,
    Dns dns,
    ObjectNode raw)
    implements Result {

  public Result100 {
    ResultShape.V100.require(cniVersion);
    interfaces = List.copyOf(interfaces);
    ips = List.copyOf(ips);
    routes = List.copyOf(routes);
    dns = dns == null ? Dns.EMPTY : dns;
    raw = raw == null ? null : raw.deepCopy();
  }

  /** A result built in code (no raw JSON behind it). */
  public static Result100 of(
      CniVersion cniVersion,
      List<Interface> interfaces,
      List<IpConfig> ips,
      List<Route> routes,
      Dns dns) {
    return new Result100(cniVersion, interfaces, ips, routes, dns, null);
  }

  @Override
  public ObjectNode raw() {
    return raw == null ? null : raw.deepCopy();
  }
}
