package dev.cnioperator.cni.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;

/**
 * Reads configuration bytes into a Jackson tree the way libcni's Go decoder would accept them:
 * strict JSON (no comments, no trailing commas, nothing after the document), the last of duplicate
 * keys wins, and decimals are kept exactly (BigDecimal) so nothing is rounded on the way through.
 */
final class ConfigJson {

  static final ObjectMapper MAPPER =
      JsonMapper.builder()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  private ConfigJson() {}

  /** Parses one JSON document, or throws {@link CniConfigException} (DECODING_FAILURE). */
  static JsonNode read(byte[] json, String source) {
    if (json == null || json.length == 0) {
      throw CniConfigException.malformed(source, "the document is empty", null);
    }
    try {
      JsonNode node = MAPPER.readTree(json);
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
}
