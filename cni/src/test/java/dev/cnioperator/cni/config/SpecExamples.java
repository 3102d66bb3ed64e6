package dev.cnioperator.cni.config;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * The worked examples of SPEC-1.1.0.md, kept verbatim as test resources: the Section 1 "Example
 * configuration" (JSON with comments, as the spec prints it) and the Appendix's request
 * configurations and results.
 */
final class SpecExamples {
  private static final ObjectMapper JSONC =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();

  private SpecExamples() {}

  /** The Section 1 example list with its comments stripped: plain JSON bytes. */
  static byte[] section1Example() {
    try {
      return JSONC.writeValueAsBytes(json("spec-1.1.0-section1-example.jsonc"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ObjectNode json(String resource) {
    try (InputStream in = SpecExamples.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + resource);
      }
      JsonNode node = JSONC.readTree(in);
      return (ObjectNode) node;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] bytes(String resource) {
    try (InputStream in = SpecExamples.class.getResourceAsStream(resource)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
