package dev.cnioperator.cni.result;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts results between versions with libcni's rules (pkg/types/100, 040 and 020 converters):
 * within a shape only the version changes; 1.x to 0.3.x/0.4.0 drops the interface fields 0.4.0
 * lacks (routes keep theirs: libcni shares one route type); 0.3.x/0.4.0 to 0.1.0/0.2.0 keeps the
 * first IPv4 and first IPv6 address and files each route, reduced to dst and gw, under the family
 * of its destination when that family has an address; upwards, 0.2.0's ip4 then ip6 become ips and
 * their routes are concatenated. Unknown fields do not survive a conversion, as in libcni.
 */
final class ResultConverter {

  private ResultConverter() {}

  static Result convert(Result from, CniVersion to) {
    if (from.cniVersion().equals(to)) {
      return from;
    }
    ResultShape target = ResultShape.of(to).orElseThrow(() -> noConverter(from, to, ""));
    if (from instanceof Result100 r) {
      return switch (target) {
        case V100 -> Result100.of(to, r.interfaces(), r.ips(), r.routes(), r.dns());
        case V040 -> to040(r, to);
        case V020 -> to020(to040(r, CniVersion.V0_4_0), to);
      };
    }
    if (from instanceof Result040 r) {
      return switch (target) {
        case V100 -> Result100.of(to, r.interfaces(), r.ips(), r.routes(), r.dns());
        case V040 -> Result040.of(to, r.interfaces(), r.ips(), r.routes(), r.dns());
        case V020 -> to020(r, to);
      };
    }
    Result020 r = (Result020) from;
    return switch (target) {
      case V100 -> convert(from020(r, CniVersion.V0_4_0), to);
      case V040 -> from020(r, to);
      case V020 -> Result020.of(to, r.ip4(), r.ip6(), r.dns());
    };
  }

  private static Result040 to040(Result100 r, CniVersion to) {
    // Result040's constructor drops mtu, socketPath and pciID from the interfaces.
    return Result040.of(to, r.interfaces(), r.ips(), r.routes(), r.dns());
  }

  private static Result040 from020(Result020 r, CniVersion to) {
    return Result040.of(to, List.of(), r.ips(), r.routes(), r.dns());
  }

  private static Result020 to020(Result040 r, CniVersion to) {
    IpConfig ip4 = null;
    IpConfig ip6 = null;
    for (IpConfig ip : r.ips()) {
      if (ip.isIpv4() && ip4 == null) {
        ip4 = ip;
      } else if (!ip.isIpv4() && ip6 == null) {
        ip6 = ip;
      }
    }
    if (ip4 == null && ip6 == null) {
      throw noConverter(r, to, "cannot convert: no valid IP addresses");
    }
    List<Route> routes4 = new ArrayList<>();
    List<Route> routes6 = new ArrayList<>();
    for (Route route : r.routes()) {
      if (route.isIpv4() && ip4 != null) {
        routes4.add(Route.of(route.dst(), route.gw()));
      } else if (!route.isIpv4() && ip6 != null) {
        routes6.add(Route.of(route.dst(), route.gw()));
      }
    }
    return Result020.of(to, legacyIp(ip4, routes4), legacyIp(ip6, routes6), r.dns());
  }

  private static Result020.Ip legacyIp(IpConfig ip, List<Route> routes) {
    return ip == null ? null : new Result020.Ip(ip.address(), ip.gateway(), routes);
  }

  private static CniException noConverter(Result from, CniVersion to, String why) {
    return new CniException(
        CniErrorCode.INCOMPATIBLE_VERSION,
        "cannot convert CNI result version " + from.cniVersion() + " to " + to,
        why);
  }
}
