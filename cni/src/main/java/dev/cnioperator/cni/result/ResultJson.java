package dev.cnioperator.cni.result;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.io.CniJson;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;

/** Reads plugin stdout as one JSON value and writes result JSON compactly, as Go's encoder does. */
final class ResultJson {

  private ResultJson() {}

  /**
   * The single JSON value in {@code bytes}.
   *
   * @param what what the bytes are, for the error ("plugin output", "VERSION output")
   * @throws CniException INVALID_PLUGIN_OUTPUT when they are not exactly one JSON value in UTF-8
   */
  static JsonNode read(byte[] bytes, String what) {
    if (bytes == null || bytes.length == 0) {
      throw new CniException(CniErrorCode.INVALID_PLUGIN_OUTPUT, what + " is empty", "");
    }
    requireUtf8(bytes, what);
    try {
      JsonNode node = CniJson.MAPPER.readTree(bytes);
      if (node == null || node.isMissingNode()) {
        throw new CniException(CniErrorCode.INVALID_PLUGIN_OUTPUT, what + " is empty", "");
      }
      return node;
    } catch (JacksonException e) {
      throw new CniException(
          CniErrorCode.INVALID_PLUGIN_OUTPUT,
          what + " is not valid JSON",
          e.getOriginalMessage() + "; output: " + excerpt(bytes),
          e);
    } catch (java.io.IOException e) {
      // Bytes in memory cannot fail to be read; this is Jackson refusing an encoding it guessed
      // (a CharConversionException on NUL-heavy output it took for UTF-32), so it is bad output.
      throw new CniException(
          CniErrorCode.INVALID_PLUGIN_OUTPUT,
          what + " is not valid JSON",
          e.getMessage() + "; output: " + excerpt(bytes),
          e);
    }
  }

  /**
   * Jackson refuses most bytes that are not UTF-8 but decodes UTF-8's form of a surrogate (ED A0 80
   * to ED BF BF) into a string that no encoder writes back the same (found by {@code
   * VersionOutputFuzzTest}); this refuses all of them alike.
   */
  private static void requireUtf8(byte[] bytes, String what) {
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CoderResult result =
        StandardCharsets.UTF_8.newDecoder().decode(in, CharBuffer.allocate(bytes.length), true);
    if (result.isError()) {
      throw new CniException(
          CniErrorCode.INVALID_PLUGIN_OUTPUT,
          what + " is not valid JSON",
          "invalid UTF-8 at byte " + in.position() + "; output: " + excerpt(bytes));
    }
  }

  static byte[] toBytes(JsonNode node) {
    try {
      return CniJson.MAPPER.writeValueAsBytes(node);
    } catch (JacksonException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  static ObjectNode newObject() {
    return CniJson.MAPPER.createObjectNode();
  }

  /** The start of what a plugin printed, for error details (plugins sometimes print pages). */
  static String excerpt(byte[] bytes) {
    String text = new String(bytes, StandardCharsets.UTF_8);
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }
}
