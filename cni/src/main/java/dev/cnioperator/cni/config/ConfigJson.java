package dev.cnioperator.cni.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.io.CniJson;
import java.io.IOException;

/**
 * Reads configuration bytes into a Jackson tree the way libcni's Go decoder would accept them:
 * strict JSON (no comments, no trailing commas, nothing after the document), the last of duplicate
 * keys wins, and decimals are kept exactly (BigDecimal) so nothing is rounded on the way through.
 *
 * <p>The bytes must be UTF-8 without a byte order mark. Jackson on its own would detect and decode
 * UTF-16 and UTF-32 and skip a BOM; Go's decoder refuses all of those, so a file we accepted could
 * not be loaded by containerd or CRI-O.
 */
final class ConfigJson {

  private ConfigJson() {}

  /** Parses one JSON document, or throws {@link CniConfigException} (DECODING_FAILURE). */
  static JsonNode read(byte[] json, String source) {
    if (json == null || json.length == 0) {
      throw CniConfigException.malformed(source, "the document is empty", null);
    }
    requireUtf8WithoutBom(json, source);
    try {
      JsonNode node = CniJson.EXACT_READER.readTree(json);
      if (node == null || node.isMissingNode()) {
        throw CniConfigException.malformed(source, "the document is empty", null);
      }
      return node;
    } catch (JacksonException e) {
      throw CniConfigException.malformed(source, "not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw CniConfigException.malformed(source, "cannot read JSON: " + e.getMessage(), e);
    } catch (NumberFormatException | ArithmeticException e) {
      // Jackson lets these through for numbers BigDecimal cannot hold, such as 1e2147483648.
      throw CniConfigException.malformed(source, "not valid JSON: " + e.getMessage(), e);
    }
  }

  private static void requireUtf8WithoutBom(byte[] json, String source) {
    if (startsWith(json, 0xEF, 0xBB, 0xBF)
        || startsWith(json, 0xFE, 0xFF)
        || startsWith(json, 0xFF, 0xFE)) {
      throw CniConfigException.malformed(
          source,
          "the document starts with a byte order mark; save it as UTF-8 without one (libcni"
              + " refuses it)",
          null);
    }
    // No JSON text holds a raw NUL, inside a string or out; in the first bytes it means UTF-16/32.
    for (int i = 0; i < json.length; i++) {
      if (json[i] == 0) {
        throw CniConfigException.malformed(
            source,
            "NUL byte at offset " + i + "; JSON must be UTF-8 text (is the file UTF-16?)",
            null);
      }
    }
  }

  private static boolean startsWith(byte[] bytes, int... prefix) {
    if (bytes.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if ((bytes[i] & 0xFF) != prefix[i]) {
        return false;
      }
    }
    return true;
  }
}
