package dev.cnioperator.cni.config;

import static dev.cnioperator.cni.config.ConfigValidator.quote;
import static dev.cnioperator.cni.config.ConfigValidator.wrongType;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Checks one plugin configuration object of a list (SPEC-1.1.0.md Section 1, "Plugin configuration
 * objects"): {@code type} and {@code ipam.type}, the reserved keys, {@code capabilities}, {@code
 * dns}, and that a plugin's own {@code cniVersion} and {@code name}, if it has them, agree with the
 * list's. Unknown keys are the plugin's business and are not checked.
 */
final class PluginConfigValidator {
  /**
   * SPEC-1.1.0.md Section 1, "Reserved keys", plus {@code prevResult}: Section 3 has the runtime
   * insert it and forbids it on the first ADD of a chain, so a static one in the configuration
   * would either be sent where it must not be or silently replaced.
   */
  private static final Set<String> RESERVED = Set.of("runtimeConfig", "args", "prevResult");

  private static final String RESERVED_PREFIX = "cni.dev/";

  /** Linux NAME_MAX: a longer {@code type} cannot name a file. */
  private static final int MAX_FILE_NAME_BYTES = 255;

  private PluginConfigValidator() {}

  static void check(
      JsonNode plugin,
      String path,
      JsonNode listName,
      JsonNode listCniVersion,
      List<ConfigProblem> problems) {
    if (!plugin.isObject()) {
      problems.add(wrongType(path, "a plugin configuration object", plugin));
      return;
    }
    checkReservedKeys(plugin, path, problems);
    checkType(plugin.get("type"), JsonPath.field(path, "type"), problems);
    JsonNode ipam = plugin.get("ipam");
    if (ipam != null) {
      String ipamPath = JsonPath.field(path, "ipam");
      if (ipam.isObject()) {
        checkIpamType(ipam.get("type"), JsonPath.field(ipamPath, "type"), problems);
      } else {
        problems.add(wrongType(ipamPath, "an object", ipam));
      }
    }
    checkCapabilities(plugin.get("capabilities"), JsonPath.field(path, "capabilities"), problems);
    DnsConfigValidator.check(plugin.get("dns"), JsonPath.field(path, "dns"), problems);
    checkAgrees(
        plugin, path, "cniVersion", listCniVersion, ConflistRule.VERSION_MISMATCH, problems);
    checkAgrees(plugin, path, "name", listName, ConflistRule.NAME_MISMATCH, problems);
  }

  /** Refuses the keys the runtime generates at execution time (SPEC-1.1.0.md Section 1). */
  static void checkReservedKeys(JsonNode object, String path, List<ConfigProblem> problems) {
    for (Map.Entry<String, JsonNode> member : object.properties()) {
      String key = member.getKey();
      if (RESERVED.contains(key) || key.startsWith(RESERVED_PREFIX)) {
        problems.add(
            new ConfigProblem(
                JsonPath.field(path, key),
                ConflistRule.RESERVED_KEY,
                quote(key)
                    + " is reserved: the runtime generates it at execution time, so a"
                    + " configuration must not set it"));
      }
    }
  }

  /**
   * A plugin's {@code type} is required (SPEC-1.1.0.md Section 1, "Required keys"); libcni refuses
   * a plugin without one, so this rule holds at every {@link ValidationLevel}.
   */
  private static void checkType(JsonNode type, String path, List<ConfigProblem> problems) {
    if (type == null) {
      problems.add(
          new ConfigProblem(
              path, ConflistRule.MISSING_TYPE, path + " is missing; it names the plugin binary"));
    } else {
      checkTypeName(type, path, problems);
    }
  }

  /**
   * {@code ipam.type} names the delegated plugin (Section 1, "ipam"); without it the plugin cannot
   * delegate, but libcni does not check it, so it is a policy rule of its own.
   */
  private static void checkIpamType(JsonNode type, String path, List<ConfigProblem> problems) {
    if (type == null) {
      problems.add(
          new ConfigProblem(
              path,
              ConflistRule.MISSING_IPAM_TYPE,
              path + " is missing; it names the IPAM plugin binary the plugin delegates to"));
    } else {
      checkTypeName(type, path, problems);
    }
  }

  private static void checkTypeName(JsonNode type, String path, List<ConfigProblem> problems) {
    if (!type.isTextual()) {
      problems.add(wrongType(path, "a plugin binary name", type));
    } else {
      unsafeFileName(type.textValue())
          .ifPresent(
              why ->
                  problems.add(
                      new ConfigProblem(
                          path,
                          ConflistRule.UNSAFE_TYPE,
                          path
                              + " "
                              + quote(type.textValue())
                              + " is not a safe file name: it "
                              + why)));
    }
  }

  /**
   * Why {@code name} cannot be a plugin binary's file name in {@code CNI_PATH}, if it cannot
   * (SPEC-1.1.0.md Section 1, "type": no characters disallowed in file paths, such as / or \).
   */
  static Optional<String> unsafeFileName(String name) {
    if (name.isEmpty()) {
      return Optional.of("is empty");
    }
    if (name.indexOf('/') >= 0) {
      return Optional.of("contains '/'");
    }
    if (name.indexOf('\\') >= 0) {
      return Optional.of("contains '\\'");
    }
    if (name.equals(".") || name.contains("..")) {
      return Optional.of("is or contains a relative path ('.' or '..')");
    }
    if (name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      return Optional.of("contains a control character");
    }
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_FILE_NAME_BYTES) {
      return Optional.of("is longer than " + MAX_FILE_NAME_BYTES + " bytes");
    }
    return Optional.empty();
  }

  /** SPEC-1.1.0.md Section 3, "Deriving runtimeConfig": capabilities map names to booleans. */
  private static void checkCapabilities(
      JsonNode capabilities, String path, List<ConfigProblem> problems) {
    if (capabilities == null) {
      return;
    }
    if (!capabilities.isObject()) {
      problems.add(wrongType(path, "an object of capability names to true or false", capabilities));
      return;
    }
    for (Map.Entry<String, JsonNode> member : capabilities.properties()) {
      if (!member.getValue().isBoolean()) {
        String memberPath = JsonPath.field(path, member.getKey());
        problems.add(
            new ConfigProblem(
                memberPath,
                ConflistRule.CAPABILITIES_NOT_BOOLEAN,
                "capability "
                    + quote(member.getKey())
                    + " must be true or false, not "
                    + member.getValue().toString()));
      }
    }
  }

  /**
   * A plugin's own {@code cniVersion} or {@code name} must agree with the list's: the runtime
   * overwrites both (SPEC-1.1.0.md Section 3), so a different value means the author expected
   * something that will not happen.
   */
  private static void checkAgrees(
      JsonNode plugin,
      String path,
      String key,
      JsonNode listValue,
      ConflistRule rule,
      List<ConfigProblem> problems) {
    JsonNode own = plugin.get(key);
    if (own == null || listValue == null || own.equals(listValue)) {
      return;
    }
    String ownPath = JsonPath.field(path, key);
    problems.add(
        new ConfigProblem(
            ownPath,
            rule,
            ownPath
                + " is "
                + own
                + " but the list's "
                + key
                + " is "
                + listValue
                + "; the runtime sends the list's, so leave it out or make them equal"));
  }
}
