package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * A result in the legacy 0.1.0/0.2.0 shape (libcni's {@code types020}): at most one IPv4 and one
 * IPv6 configuration, each with its own routes, and no interfaces. Read so that old cached results
 * and old plugins still work; {@code raw} is the JSON it was read from, or null.
 */
public record Result020(CniVersion cniVersion, Ip ip4, Ip ip6, Dns dns, ObjectNode raw)
    implements Result {

  /** The {@code ip4}/{@code ip6} object: address in CIDR notation, gateway, and its routes. */
  public record Ip(String ip, String gateway, List<Route> routes) {
    public Ip {
      IpConfig canonical = new IpConfig(ip, gateway, null);
      ip = canonical.address();
      gateway = canonical.gateway();
      routes = routes == null ? List.of() : List.copyOf(routes);
    }
  }

  public Result020 {
    ResultShape.V020.require(cniVersion);
    dns = dns == null ? Dns.EMPTY : dns;
    raw = raw == null ? null : raw.deepCopy();
  }

  /** A result built in code (no raw JSON behind it). */
  public static Result020 of(CniVersion cniVersion, Ip ip4, Ip ip6, Dns dns) {
    return new Result020(cniVersion, ip4, ip6, dns, null);
  }

  @Override
  public ObjectNode raw() {
    return raw == null ? null : raw.deepCopy();
  }

  @Override
  public List<Interface> interfaces() {
    return List.of();
  }

  @Override
  public List<IpConfig> ips() {
    List<IpConfig> out = new ArrayList<>(2);
    for (Ip ip : new Ip[] {ip4, ip6}) {
      if (ip != null) {
        out.add(new IpConfig(ip.ip(), ip.gateway(), null));
      }
    }
    return List.copyOf(out);
  }

  @Override
  public List<Route> routes() {
    List<Route> out = new ArrayList<>();
    for (Ip ip : new Ip[] {ip4, ip6}) {
      if (ip != null) {
        out.addAll(ip.routes());
      }
    }
    return List.copyOf(out);
  }
}
