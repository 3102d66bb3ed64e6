package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Checks the well-known {@code dns} key of a plugin object (SPEC-1.1.0.md Section 1): {@code
 * nameservers} a list of IPv4/IPv6 addresses, {@code search} and {@code options} lists of strings,
 * {@code domain} a string. Other keys inside {@code dns} pass through unchecked.
 */
final class DnsConfigValidator {
  private static final ConflistRule RULE = ConflistRule.DNS_SHAPE;

  private static final Pattern IPV4 =
      Pattern.compile(
          "^((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)$");

  /** Only hex digits, ':' and '.', so an IPv6 check can never become a DNS lookup. */
  private static final Pattern IPV6_CHARS = Pattern.compile("^[0-9A-Fa-f:.]+$");

  private DnsConfigValidator() {}

  static void check(JsonNode dns, String path, List<ConfigProblem> problems) {
    if (dns == null) {
      return;
    }
    if (!dns.isObject()) {
      problems.add(shape(path, "dns must be an object with nameservers, domain, search, options"));
      return;
    }
    for (Map.Entry<String, JsonNode> member : dns.properties()) {
      String key = member.getKey();
      JsonNode value = member.getValue();
      String memberPath = JsonPath.field(path, key);
      switch (key) {
        case "domain" -> {
          if (!value.isTextual()) {
            problems.add(shape(memberPath, "dns.domain must be a string, not " + value));
          }
        }
        case "nameservers", "search", "options" ->
            checkStrings(value, memberPath, key.equals("nameservers"), problems);
        default -> {
          // Not defined by the spec; a plugin may understand it.
        }
      }
    }
  }

  private static void checkStrings(
      JsonNode list, String path, boolean addresses, List<ConfigProblem> problems) {
    if (!list.isArray()) {
      problems.add(shape(path, path + " must be a list of strings, not " + list));
      return;
    }
    for (int i = 0; i < list.size(); i++) {
      JsonNode entry = list.get(i);
      String entryPath = JsonPath.index(path, i);
      if (!entry.isTextual()) {
        problems.add(shape(entryPath, entryPath + " must be a string, not " + entry));
      } else if (addresses && !isIpAddress(entry.textValue())) {
        problems.add(
            shape(
                entryPath,
                "nameserver "
                    + ConfigValidator.quote(entry.textValue())
                    + " is not an IPv4 or IPv6 address"));
      }
    }
  }

  static boolean isIpAddress(String text) {
    if (IPV4.matcher(text).matches()) {
      return true;
    }
    if (text.indexOf(':') < 0 || !IPV6_CHARS.matcher(text).matches()) {
      return false;
    }
    try {
      // Brackets make InetAddress parse an IPv6 literal or fail; it never resolves a name then.
      java.net.InetAddress.getByName("[" + text + "]");
      return true;
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }

  private static ConfigProblem shape(String path, String message) {
    return new ConfigProblem(path, RULE, message);
  }
}
