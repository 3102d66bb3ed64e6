package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.List;

/**
 * A result in the 0.3.0/0.3.1/0.4.0 shape (libcni's {@code types040}): like the current shape but
 * each ip carries {@code version} ("4"/"6", derived from the address when written) and interfaces
 * have only name, mac and sandbox. {@code raw} is the JSON it was read from, or null.
 */
public record Result040(
    CniVersion cniVersion,
    List<Interface> interfaces,
    List<IpConfig> ips,
    List<Route> routes,
    Dns dns,
    ObjectNode raw)
    implements Result {

  public Result040 {
    ResultShape.V040.require(cniVersion);
    interfaces = interfaces.stream().map(Interface::withoutV1Fields).toList();
    ips = List.copyOf(ips);
    routes = List.copyOf(routes);
    dns = dns == null ? Dns.EMPTY : dns;
    raw = raw == null ? null : raw.deepCopy();
  }

  /** A result built in code (no raw JSON behind it). */
  public static Result040 of(
      CniVersion cniVersion,
      List<Interface> interfaces,
      List<IpConfig> ips,
      List<Route> routes,
      Dns dns) {
    return new Result040(cniVersion, interfaces, ips, routes, dns, null);
  }

  @Override
  public ObjectNode raw() {
    return raw == null ? null : raw.deepCopy();
  }
}
