package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a result object of a known version into its typed record, checking every field libcni's
 * types read for that version; fields a version does not define are left to the raw JSON.
 */
final class ResultDecoder {

  private ResultDecoder() {}

  static Result decode(ObjectNode root, CniVersion version) {
    JsonFields fields = new JsonFields(root, "", "decoding a CNI " + version + " result");
    return switch (ResultShape.ofKnown(version)) {
      case V100 ->
          new Result100(
              version,
              interfaces(fields, true),
              ips(fields, false),
              routes(fields, "routes"),
              dns(fields),
              root);
      case V040 ->
          new Result040(
              version,
              interfaces(fields, false),
              ips(fields, true),
              routes(fields, "routes"),
              dns(fields),
              root);
      case V020 ->
          new Result020(version, ip020(fields, "ip4"), ip020(fields, "ip6"), dns(fields), root);
    };
  }

  /** Interfaces; the 1.1.0 fields are read only for the current shape (types040 lacks them). */
  private static List<Interface> interfaces(JsonFields fields, boolean current) {
    List<Interface> out = new ArrayList<>();
    for (JsonFields intf : fields.objects("interfaces")) {
      String name = intf.string("name").orElse("");
      String mac = nonEmpty(intf.string("mac").orElse(null));
      String sandbox = nonEmpty(intf.string("sandbox").orElse(null));
      if (current) {
        Integer mtu = intf.integer("mtu").orElse(null);
        String socketPath = nonEmpty(intf.string("socketPath").orElse(null));
        String pciId = nonEmpty(intf.string("pciID").orElse(null));
        out.add(new Interface(name, mac, mtu, sandbox, socketPath, pciId));
      } else {
        out.add(Interface.of(name, mac, sandbox));
      }
    }
    return out;
  }

  /**
   * {@code ips}. In the 0.3.x/0.4.0 shape a {@code version} that contradicts the address is
   * refused: this library derives it from the address on output, so a wrong one would silently
   * change.
   */
  private static List<IpConfig> ips(JsonFields fields, boolean withVersion) {
    List<IpConfig> out = new ArrayList<>();
    for (JsonFields ip : fields.objects("ips")) {
      String address = cidr(ip, "address");
      String gateway = ipAddress(ip, "gateway");
      Integer index = ip.integer("interface").orElse(null);
      if (index != null && index < 0) {
        throw ip.fail("interface", "must not be negative: " + index);
      }
      IpConfig config = new IpConfig(address, gateway, index);
      String declared = withVersion ? ip.string("version").orElse(null) : null;
      if (declared != null && !declared.isEmpty() && !declared.equals(config.ipVersion())) {
        throw ip.fail(
            "version",
            "is \"" + declared + "\" but address " + address + " is IPv" + config.ipVersion());
      }
      out.add(config);
    }
    return out;
  }

  private static List<Route> routes(JsonFields fields, String field) {
    List<Route> out = new ArrayList<>();
    for (JsonFields route : fields.objects(field)) {
      out.add(
          new Route(
              cidr(route, "dst"),
              ipAddress(route, "gw"),
              route.integer("mtu").orElse(null),
              route.integer("advmss").orElse(null),
              route.integer("priority").orElse(null),
              route.integer("table").orElse(null),
              route.integer("scope").orElse(null)));
    }
    return out;
  }

  private static Dns dns(JsonFields fields) {
    return fields
        .object("dns")
        .map(
            dns ->
                new Dns(
                    dns.strings("nameservers"),
                    dns.string("domain").orElse(null),
                    dns.strings("search"),
                    dns.strings("options")))
        .orElse(Dns.EMPTY);
  }

  private static Result020.Ip ip020(JsonFields fields, String field) {
    return fields
        .object(field)
        .map(ip -> new Result020.Ip(cidr(ip, "ip"), ipAddress(ip, "gateway"), routes(ip, "routes")))
        .orElse(null);
  }

  private static String cidr(JsonFields fields, String field) {
    String text = fields.string(field).orElseThrow(() -> fields.fail(field, "is missing"));
    return Cidr.parse(text)
        .map(Cidr::toString)
        .orElseThrow(() -> fields.fail(field, "is not a CIDR: \"" + text + "\""));
  }

  /** An optional IP address; Go reads "" as no address. */
  private static String ipAddress(JsonFields fields, String field) {
    String text = fields.string(field).orElse("");
    if (text.isEmpty()) {
      return null;
    }
    return IpAddress.parse(text)
        .map(IpAddress::toString)
        .orElseThrow(() -> fields.fail(field, "is not an IP address: \"" + text + "\""));
  }

  private static String nonEmpty(String text) {
    return text == null || text.isEmpty() ? null : text;
  }
}
