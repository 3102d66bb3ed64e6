package dev.cnioperator.cni.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.io.CniJson;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytes of one libcni cache file, both ways. libcni ({@code libcni/api.go}, {@code cachedInfo})
 * marshals {@code kind}, {@code containerId}, {@code config} (base64, Go's []byte), {@code ifName},
 * {@code networkName}, then, only when not empty, {@code netns}, {@code cniArgs} ({@code
 * [["K","V"],...]}), {@code capabilityArgs} and {@code result}; this writes the same keys in the
 * same order and reads any extra keys without complaint.
 */
final class CacheFileFormat {
  static final String KIND = "cniCacheV1";

  private CacheFileFormat() {}

  static byte[] encode(CachedAttachment entry) {
    ObjectNode root = CniJson.MAPPER.createObjectNode();
    root.put("kind", KIND);
    root.put("containerId", entry.containerId());
    root.put("config", Base64.getEncoder().encodeToString(entry.config()));
    root.put("ifName", entry.ifName());
    root.put("networkName", entry.networkName());
    if (!entry.netns().isEmpty()) {
      root.put("netns", entry.netns());
    }
    if (!entry.cniArgs().isEmpty()) {
      ArrayNode args = root.putArray("cniArgs");
      entry.cniArgs().forEach(a -> args.addArray().add(a.key()).add(a.value()));
    }
    if (!entry.capabilityArgs().isEmpty()) {
      ObjectNode caps = root.putObject("capabilityArgs");
      new java.util.TreeMap<>(entry.capabilityArgs()).forEach((k, v) -> caps.set(k, sorted(v)));
    }
    if (entry.result() != null && !entry.result().isNull()) {
      root.set("result", sorted(entry.result()));
    }
    try {
      return CniJson.MAPPER.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  /** A copy of {@code node} with the members of every object in key order, as Go marshals maps. */
  static JsonNode sorted(JsonNode node) {
    if (node.isObject()) {
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      List<String> names = new ArrayList<>();
      node.fieldNames().forEachRemaining(names::add);
      names.stream().sorted().forEach(name -> out.set(name, sorted(node.get(name))));
      return out;
    }
    if (node.isArray()) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      node.forEach(element -> out.add(sorted(element)));
      return out;
    }
    return node;
  }

  /**
   * One file's bytes as a JSON object. Numbers with a fraction or exponent are read as written
   * ({@link CniJson#EXACT_READER}), so that an entry written back holds the same result: read as a
   * double, {@code 1e400} would become infinity and be written back as the string {@code
   * "Infinity"} (found by {@code CacheFileFuzzTest}).
   *
   * @throws CniException {@code DECODING_FAILURE} naming {@code source} when they are not one
   */
  static JsonNode parse(byte[] bytes, String source) {
    JsonNode root;
    try {
      root = CniJson.EXACT_READER.readTree(bytes);
    } catch (IOException | NumberFormatException | ArithmeticException e) {
      throw corrupt(source, "not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw corrupt(source, "not a JSON object");
    }
    return root;
  }

  /**
   * The entry one file holds, from its {@link #parse parsed} object.
   *
   * @param network, containerId, ifName what the file name says, used for a legacy entry (a file
   *     holding only a result, as libcni wrote before {@code cniCacheV1}) that has no fields
   * @throws CniException {@code DECODING_FAILURE} naming {@code source} when a field has the wrong
   *     shape
   */
  static CachedAttachment decode(
      JsonNode root, String source, String network, String containerId, String ifName) {
    if (!KIND.equals(root.path("kind").asText())) {
      return new CachedAttachment(network, containerId, ifName, "", null, null, null, root);
    }
    return new CachedAttachment(
        text(root, "networkName", source),
        text(root, "containerId", source),
        text(root, "ifName", source),
        root.path("netns").asText(""),
        cniArgs(root.path("cniArgs"), source),
        capabilityArgs(root.path("capabilityArgs"), source),
        config(root.path("config"), source),
        root.hasNonNull("result") ? root.get("result") : null);
  }

  /** Whether the bytes are a {@code cniCacheV1} entry (libcni's list skips everything else). */
  static boolean isV1(JsonNode root) {
    return KIND.equals(root.path("kind").asText());
  }

  private static String text(JsonNode root, String field, String source) {
    JsonNode node = root.path(field);
    if (!node.isTextual()) {
      throw corrupt(source, "field \"" + field + "\" is missing or not a string");
    }
    return node.asText();
  }

  private static byte[] config(JsonNode node, String source) {
    if (node.isMissingNode() || node.isNull()) {
      return new byte[0];
    }
    try {
      return Base64.getDecoder().decode(node.asText());
    } catch (IllegalArgumentException e) {
      throw corrupt(source, "field \"config\" is not base64: " + e.getMessage());
    }
  }

  private static List<CniArg> cniArgs(JsonNode node, String source) {
    List<CniArg> args = new ArrayList<>();
    if (node.isMissingNode() || node.isNull()) {
      return args;
    }
    if (!node.isArray()) {
      throw corrupt(source, "field \"cniArgs\" is not a list of [key, value] pairs");
    }
    for (JsonNode pair : node) {
      if (!pair.isArray() || pair.size() != 2) {
        throw corrupt(source, "field \"cniArgs\" has an entry that is not [key, value]: " + pair);
      }
      try {
        args.add(new CniArg(pair.get(0).asText(), pair.get(1).asText()));
      } catch (CniException e) {
        throw corrupt(source, "field \"cniArgs\": " + e.msg());
      }
    }
    return args;
  }

  private static Map<String, JsonNode> capabilityArgs(JsonNode node, String source) {
    Map<String, JsonNode> caps = new LinkedHashMap<>();
    if (node.isMissingNode() || node.isNull()) {
      return caps;
    }
    if (!node.isObject()) {
      throw corrupt(source, "field \"capabilityArgs\" is not an object");
    }
    node.properties().forEach(e -> caps.put(e.getKey(), e.getValue()));
    return caps;
  }

  private static CniException corrupt(String source, String what) {
    return new CniException(
        CniErrorCode.DECODING_FAILURE, "cannot read cached attachment " + source, what);
  }
}
