package dev.cnioperator.cni.config;

import java.util.regex.Pattern;

/**
 * Builds the JSON paths that {@link ConfigProblem} reports, such as {@code plugins[1].ipam.type}.
 */
final class JsonPath {
  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  private JsonPath() {}

  /** The path of member {@code key} of the object at {@code parent} ("" is the document). */
  static String field(String parent, String key) {
    if (!IDENTIFIER.matcher(key).matches()) {
      // Keys such as "cni.dev/foo" would be ambiguous with dots; quote them like JSONPath does.
      return parent + "[\"" + key.replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
    }
    return parent.isEmpty() ? key : parent + "." + key;
  }

  /** The path of element {@code index} of the array at {@code parent}. */
  static String index(String parent, int index) {
    return parent + "[" + index + "]";
  }
}
