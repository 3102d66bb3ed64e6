package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes a Jackson tree as JSON text with fully determined output: either canonical (keys sorted,
 * two-space indent) or compact in the tree's own key order (what a plugin gets on stdin).
 *
 * <p>Numbers are written by value, not by their input spelling, the way libcni's Go round trip
 * (decode into {@code interface{}}, encode again) normalises them: {@code 1.0}, {@code 1e0} and
 * {@code 1} all become {@code 1}; {@code 1.50} becomes {@code 1.5}. Unlike Go, integers are never
 * rounded through a float64. Strings escape only what JSON requires (quote, backslash, control
 * characters) plus unpaired surrogates, which UTF-8 cannot carry.
 */
final class JsonText {
  /** Beyond this many digits a number is written in exponent form instead of plain digits. */
  private static final int MAX_PLAIN_DIGITS = 64;

  private final boolean canonical;
  private final StringBuilder out = new StringBuilder();

  private JsonText(boolean canonical) {
    this.canonical = canonical;
  }

  /** Sorted keys, two-space indent, "\n" line ends, trailing newline. */
  static byte[] canonical(JsonNode node) {
    JsonText text = new JsonText(true);
    text.value(node, 0);
    text.out.append('\n');
    return text.out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** No whitespace, keys in the tree's own order. */
  static byte[] compact(JsonNode node) {
    JsonText text = new JsonText(false);
    text.value(node, 0);
    return text.out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** {@code s} as a JSON string literal, quotes included. */
  static String quoted(String s) {
    JsonText text = new JsonText(false);
    text.string(s);
    return text.out.toString();
  }

  private void value(JsonNode node, int depth) {
    switch (node.getNodeType()) {
      case OBJECT -> object(node, depth);
      case ARRAY -> array(node, depth);
      case STRING -> string(node.textValue());
      case NUMBER -> out.append(number(node));
      case BOOLEAN -> out.append(node.booleanValue());
      case NULL -> out.append("null");
      default ->
          throw new IllegalArgumentException(
              "cannot write a " + node.getNodeType() + " node as JSON");
    }
  }

  private void object(JsonNode node, int depth) {
    List<Map.Entry<String, JsonNode>> members = new ArrayList<>();
    members.addAll(node.properties());
    if (canonical) {
      members.sort(Map.Entry.comparingByKey(JsonText::compareCodePoints));
    }
    if (members.isEmpty()) {
      out.append("{}");
      return;
    }
    out.append('{');
    for (int i = 0; i < members.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      newline(depth + 1);
      string(members.get(i).getKey());
      out.append(canonical ? ": " : ":");
      value(members.get(i).getValue(), depth + 1);
    }
    newline(depth);
    out.append('}');
  }

  private void array(JsonNode node, int depth) {
    if (node.isEmpty()) {
      out.append("[]");
      return;
    }
    out.append('[');
    Iterator<JsonNode> elements = node.elements();
    boolean first = true;
    while (elements.hasNext()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      newline(depth + 1);
      value(elements.next(), depth + 1);
    }
    newline(depth);
    out.append(']');
  }

  private void newline(int depth) {
    if (canonical) {
      out.append('\n');
      out.append("  ".repeat(depth));
    }
  }

  private void string(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        default -> {
          if (c < 0x20) {
            unicodeEscape(c);
          } else if (Character.isHighSurrogate(c)
              && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1))) {
            out.append(c).append(s.charAt(++i));
          } else if (Character.isSurrogate(c)) {
            unicodeEscape(c);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private void unicodeEscape(char c) {
    out.append(String.format("\\u%04x", (int) c));
  }

  /** A number's value in the shortest exact form: integers as digits, fractions without padding. */
  static String number(JsonNode node) {
    if (node.isIntegralNumber()) {
      return node.bigIntegerValue().toString();
    }
    BigDecimal value;
    if (node.isDouble() || node.isFloat()) {
      double d = node.doubleValue();
      if (!Double.isFinite(d)) {
        throw new IllegalArgumentException("JSON cannot represent the number " + d);
      }
      // Float.toString keeps a float's own shortest spelling rather than its widened double.
      value =
          new BigDecimal(node.isFloat() ? Float.toString(node.floatValue()) : Double.toString(d));
    } else {
      value = node.decimalValue();
    }
    if (value.signum() == 0) {
      return "0";
    }
    value = value.stripTrailingZeros();
    boolean integral = value.scale() <= 0;
    boolean small =
        integral
            ? (long) value.precision() - value.scale() <= MAX_PLAIN_DIGITS
            : value.scale() <= MAX_PLAIN_DIGITS;
    return small ? value.toPlainString() : value.toString();
  }

  /** Orders strings by Unicode code point, which is UTF-8 byte order (Go sorts map keys so). */
  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
