package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Writes a typed result in its version's wire shape exactly as libcni marshals it: a 1.x result
 * with every object's keys sorted (libcni re-marshals it through a map to drop an empty dns), the
 * older shapes in struct order with {@code dns} always present; zero and empty values left out
 * where libcni's {@code omitempty} leaves them out.
 */
final class ResultEncoder {

  private ResultEncoder() {}

  static ObjectNode encode(Result result) {
    if (result instanceof Result100 r) {
      return encode(r);
    }
    if (result instanceof Result040 r) {
      return encode(r);
    }
    return encode((Result020) result);
  }

  private static ObjectNode encode(Result100 r) {
    ObjectNode out = ResultJson.newObject();
    out.put("cniVersion", r.cniVersion().toString());
    if (!r.dns().isEmpty()) {
      out.set("dns", dnsSorted(r.dns()));
    }
    if (!r.interfaces().isEmpty()) {
      ArrayNode interfaces = out.putArray("interfaces");
      for (Interface intf : r.interfaces()) {
        ObjectNode o = interfaces.addObject();
        putText(o, "mac", intf.mac());
        putNonZero(o, "mtu", intf.mtu());
        o.put("name", intf.name());
        putText(o, "pciID", intf.pciID());
        putText(o, "sandbox", intf.sandbox());
        putText(o, "socketPath", intf.socketPath());
      }
    }
    if (!r.ips().isEmpty()) {
      ArrayNode ips = out.putArray("ips");
      for (IpConfig ip : r.ips()) {
        ObjectNode o = ips.addObject();
        o.put("address", ip.address());
        putText(o, "gateway", ip.gateway());
        if (ip.interfaceIndex() != null) {
          o.put("interface", ip.interfaceIndex());
        }
      }
    }
    if (!r.routes().isEmpty()) {
      ArrayNode routes = out.putArray("routes");
      for (Route route : r.routes()) {
        ObjectNode o = routes.addObject();
        putNonZero(o, "advmss", route.advmss());
        o.put("dst", route.dst());
        putText(o, "gw", route.gw());
        putNonZero(o, "mtu", route.mtu());
        putNonZero(o, "priority", route.priority());
        putInteger(o, "scope", route.scope());
        putInteger(o, "table", route.table());
      }
    }
    return out;
  }

  private static ObjectNode encode(Result040 r) {
    ObjectNode out = ResultJson.newObject();
    out.put("cniVersion", r.cniVersion().toString());
    if (!r.interfaces().isEmpty()) {
      ArrayNode interfaces = out.putArray("interfaces");
      for (Interface intf : r.interfaces()) {
        ObjectNode o = interfaces.addObject();
        o.put("name", intf.name());
        putText(o, "mac", intf.mac());
        putText(o, "sandbox", intf.sandbox());
      }
    }
    if (!r.ips().isEmpty()) {
      ArrayNode ips = out.putArray("ips");
      for (IpConfig ip : r.ips()) {
        ObjectNode o = ips.addObject();
        o.put("version", ip.ipVersion());
        if (ip.interfaceIndex() != null) {
          o.put("interface", ip.interfaceIndex());
        }
        o.put("address", ip.address());
        putText(o, "gateway", ip.gateway());
      }
    }
    putRoutes(out, "routes", r.routes());
    out.set("dns", dnsInStructOrder(r.dns()));
    return out;
  }

  private static ObjectNode encode(Result020 r) {
    ObjectNode out = ResultJson.newObject();
    out.put("cniVersion", r.cniVersion().toString());
    for (String family : new String[] {"ip4", "ip6"}) {
      Result020.Ip ip = family.equals("ip4") ? r.ip4() : r.ip6();
      if (ip != null) {
        ObjectNode o = out.putObject(family);
        o.put("ip", ip.ip());
        putText(o, "gateway", ip.gateway());
        putRoutes(o, "routes", ip.routes());
      }
    }
    out.set("dns", dnsInStructOrder(r.dns()));
    return out;
  }

  /** Routes in libcni's struct order (dst, gw, mtu, advmss, priority, table, scope). */
  private static void putRoutes(ObjectNode parent, String field, List<Route> routes) {
    if (routes.isEmpty()) {
      return;
    }
    ArrayNode array = parent.putArray(field);
    for (Route route : routes) {
      ObjectNode o = array.addObject();
      o.put("dst", route.dst());
      putText(o, "gw", route.gw());
      putNonZero(o, "mtu", route.mtu());
      putNonZero(o, "advmss", route.advmss());
      putNonZero(o, "priority", route.priority());
      putInteger(o, "table", route.table());
      putInteger(o, "scope", route.scope());
    }
  }

  private static ObjectNode dnsInStructOrder(Dns dns) {
    ObjectNode o = ResultJson.newObject();
    putStrings(o, "nameservers", dns.nameservers());
    putText(o, "domain", dns.domain());
    putStrings(o, "search", dns.search());
    putStrings(o, "options", dns.options());
    return o;
  }

  private static ObjectNode dnsSorted(Dns dns) {
    ObjectNode o = ResultJson.newObject();
    putText(o, "domain", dns.domain());
    putStrings(o, "nameservers", dns.nameservers());
    putStrings(o, "options", dns.options());
    putStrings(o, "search", dns.search());
    return o;
  }

  private static void putStrings(ObjectNode o, String field, List<String> values) {
    if (!values.isEmpty()) {
      ArrayNode array = o.putArray(field);
      values.forEach(array::add);
    }
  }

  /** Go's {@code omitempty} on a string: null and "" are left out. */
  private static void putText(ObjectNode o, String field, String value) {
    if (value != null && !value.isEmpty()) {
      o.put(field, value);
    }
  }

  /** Go's {@code omitempty} on an int: null and 0 are left out (negatives are written). */
  private static void putNonZero(ObjectNode o, String field, Integer value) {
    if (value != null && value != 0) {
      o.put(field, value);
    }
  }

  /** A Go {@code *int} with {@code omitempty}: only null is left out, 0 is written. */
  private static void putInteger(ObjectNode o, String field, Integer value) {
    if (value != null) {
      o.put(field, value);
    }
  }
}
