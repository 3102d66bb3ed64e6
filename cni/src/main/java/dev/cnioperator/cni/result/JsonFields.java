package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Typed reads of the fields of a JSON object, each failure a DECODING_FAILURE naming the field's
 * path ("ips[0].address"). Like Go's decoder, an absent field and a JSON null read the same.
 */
final class JsonFields {

  private final ObjectNode object;
  private final String path;
  private final String context;

  /**
   * @param path where {@code object} sits ("" for the root, "ips[0]" for an element)
   * @param context what is being decoded, for the error details ("a CNI 1.0.0 result")
   */
  JsonFields(ObjectNode object, String path, String context) {
    this.object = object;
    this.path = path;
    this.context = context;
  }

  /** Reads {@code node} as an object at {@code path}. */
  static JsonFields of(JsonNode node, String path, String context) {
    if (node == null || !node.isObject()) {
      throw error(path, "must be a JSON object, not " + describe(node), context);
    }
    return new JsonFields((ObjectNode) node, path, context);
  }

  ObjectNode objectNode() {
    return object;
  }

  String path(String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  boolean has(String field) {
    JsonNode value = object.get(field);
    return value != null && !value.isNull();
  }

  Optional<String> string(String field) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isTextual()) {
      throw fail(field, "must be a string, not " + describe(value));
    }
    return Optional.of(value.textValue());
  }

  Optional<Integer> integer(String field) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isIntegralNumber()) {
      throw fail(field, "must be an integer, not " + describe(value));
    }
    if (!value.canConvertToInt()) {
      throw fail(field, "is out of range: " + value.asText());
    }
    return Optional.of(value.intValue());
  }

  List<String> strings(String field) {
    List<String> out = new ArrayList<>();
    List<JsonNode> elements = array(field);
    for (int i = 0; i < elements.size(); i++) {
      JsonNode element = elements.get(i);
      if (!element.isTextual()) {
        throw error(
            path(field) + "[" + i + "]", "must be a string, not " + describe(element), context);
      }
      out.add(element.textValue());
    }
    return out;
  }

  /** The elements of an array field as objects; empty when the field is absent. */
  List<JsonFields> objects(String field) {
    List<JsonFields> out = new ArrayList<>();
    List<JsonNode> elements = array(field);
    for (int i = 0; i < elements.size(); i++) {
      out.add(of(elements.get(i), path(field) + "[" + i + "]", context));
    }
    return out;
  }

  /** An object field, or empty when absent. */
  Optional<JsonFields> object(String field) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    return Optional.of(of(value, path(field), context));
  }

  private List<JsonNode> array(String field) {
    JsonNode value = object.get(field);
    if (value == null || value.isNull()) {
      return List.of();
    }
    if (!value.isArray()) {
      throw fail(field, "must be an array, not " + describe(value));
    }
    List<JsonNode> out = new ArrayList<>(value.size());
    value.forEach(out::add);
    return out;
  }

  CniException fail(String field, String problem) {
    return error(path(field), problem, context);
  }

  static CniException error(String path, String problem, String context) {
    String where = path.isEmpty() ? "the document" : path;
    return new CniException(CniErrorCode.DECODING_FAILURE, where + " " + problem, context);
  }

  /** A short description of a JSON value for error messages: its type and a bounded excerpt. */
  static String describe(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "nothing";
    }
    String text = value.toString();
    String shown = text.length() <= 60 ? text : text.substring(0, 60) + "...";
    return value.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " " + shown;
  }
}
