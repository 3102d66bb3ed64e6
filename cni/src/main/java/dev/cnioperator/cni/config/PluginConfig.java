package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One plugin configuration object of a {@link NetworkConfigList}: a read-only typed view over its
 * raw JSON (unknown keys are kept untouched), and the derivation of the request configuration a
 * plugin gets on stdin (SPEC-1.1.0.md Section 3, "Deriving request configuration from plugin
 * configuration").
 *
 * <p>The request keeps the plugin object's own key order and puts {@code cniVersion} and {@code
 * name} first and {@code runtimeConfig} then {@code prevResult} last, as the Appendix examples
 * show. (libcni re-marshals a Go map, so it sends keys sorted; a plugin decodes JSON objects and
 * cannot tell the difference.)
 */
public final class PluginConfig {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final ObjectNode raw;

  /** {@code raw} must be a validated plugin object this view owns (no one else holds it). */
  PluginConfig(ObjectNode raw) {
    this.raw = raw;
  }

  /** The plugin binary's name ({@code type}). */
  public String type() {
    return raw.get("type").textValue();
  }

  /** The delegated IPAM plugin's binary name ({@code ipam.type}), if the plugin has IPAM. */
  public Optional<String> ipamType() {
    // Absent only in lists read at ValidationLevel.EXECUTABLE, where ipam.type is not required.
    return Optional.ofNullable(raw.path("ipam").path("type").textValue());
  }

  /** The declared capabilities in declaration order, true or false as declared. */
  public Map<String, Boolean> capabilities() {
    JsonNode capabilities = raw.get("capabilities");
    if (capabilities == null) {
      return Map.of();
    }
    Map<String, Boolean> result = new LinkedHashMap<>();
    capabilities.properties().forEach(e -> result.put(e.getKey(), e.getValue().booleanValue()));
    return Collections.unmodifiableMap(result);
  }

  /** A deep copy of the plugin object exactly as configured. */
  public ObjectNode raw() {
    return raw.deepCopy();
  }

  /**
   * The request configuration for an attachment operation (ADD, CHECK, DEL): the plugin object with
   * {@code cniVersion} and {@code name} set, {@code runtimeConfig} holding each capability this
   * plugin declares {@code true} for which {@code capabilityArgs} has a value (the key is left out
   * when there is none), {@code prevResult} when given, and {@code capabilities} removed.
   * Everything else is copied unchanged.
   *
   * @param capabilityArgs the attachment's capability arguments by name; null means none
   * @param prevResult the previous result, or null (or a JSON null) for the first ADD of a chain
   */
  public ObjectNode requestConfig(
      String networkName,
      CniVersion version,
      Map<String, JsonNode> capabilityArgs,
      JsonNode prevResult) {
    ObjectNode request = networkRequestConfig(networkName, version);
    ObjectNode runtimeConfig = JSON.objectNode();
    Map<String, JsonNode> args = capabilityArgs == null ? Map.of() : capabilityArgs;
    capabilities()
        .forEach(
            (capability, declared) -> {
              JsonNode arg = args.get(capability);
              if (declared && arg != null) {
                runtimeConfig.set(capability, arg.deepCopy());
              }
            });
    if (!runtimeConfig.isEmpty()) {
      request.set("runtimeConfig", runtimeConfig);
    } else if (raw.has("runtimeConfig")) {
      // Only in lists read at ValidationLevel.EXECUTABLE: libcni sends a static one unchanged.
      request.set("runtimeConfig", raw.get("runtimeConfig").deepCopy());
    }
    if (prevResult != null && !prevResult.isNull() && !prevResult.isMissingNode()) {
      request.set("prevResult", prevResult.deepCopy());
    } else if (raw.has("prevResult")) {
      request.set("prevResult", raw.get("prevResult").deepCopy());
    }
    return request;
  }

  /** The bytes sent on stdin for {@link #requestConfig}: compact JSON, UTF-8. */
  public byte[] requestBytes(
      String networkName,
      CniVersion version,
      Map<String, JsonNode> capabilityArgs,
      JsonNode prevResult) {
    return JsonText.compact(requestConfig(networkName, version, capabilityArgs, prevResult));
  }

  /**
   * The request configuration for an operation without attachment parameters (STATUS): only {@code
   * cniVersion} and {@code name} injected, {@code capabilities} removed.
   */
  public ObjectNode networkRequestConfig(String networkName, CniVersion version) {
    ObjectNode request = JSON.objectNode();
    request.put("cniVersion", version.toString());
    request.put("name", networkName);
    raw.properties()
        .forEach(
            member -> {
              if (!isInjectedOrRemoved(member.getKey())) {
                request.set(member.getKey(), member.getValue().deepCopy());
              }
            });
    return request;
  }

  /**
   * The request configuration for GC (SPEC-1.1.0.md Section 2, "GC"): the still valid attachments
   * under {@code cni.dev/valid-attachments} and, for plugins that read the key as spec-v1.1.0's
   * text spells it, also under {@code cni.dev/attachments} (libcni 1.2.3+ sends both).
   */
  public ObjectNode gcRequestConfig(
      String networkName, CniVersion version, List<GcAttachment> validAttachments) {
    ObjectNode request = networkRequestConfig(networkName, version);
    ArrayNode attachments = JSON.arrayNode();
    validAttachments.forEach(a -> attachments.add(a.toJson()));
    request.set("cni.dev/valid-attachments", attachments);
    request.set("cni.dev/attachments", attachments.deepCopy());
    return request;
  }

  /** Bytes of any derived request object, compact JSON in its own key order. */
  public static byte[] toBytes(ObjectNode request) {
    return JsonText.compact(request);
  }

  private static boolean isInjectedOrRemoved(String key) {
    return switch (key) {
      case "cniVersion", "name", "capabilities", "runtimeConfig", "prevResult" -> true;
      // SPEC-1.1.0.md Section 3: only fields not prefixed with cni.dev/ pass through.
      default -> key.startsWith("cni.dev/");
    };
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PluginConfig other && raw.equals(other.raw);
  }

  @Override
  public int hashCode() {
    return raw.hashCode();
  }

  @Override
  public String toString() {
    return "PluginConfig" + raw;
  }
}
