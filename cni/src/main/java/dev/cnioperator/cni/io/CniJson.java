package dev.cnioperator.cni.io;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The library's one Jackson mapper, configured once: it reads exactly one JSON document, as Go's
 * {@code json.Unmarshal} does (Jackson on its own ignores whatever follows the first value), and
 * writes compactly, as Go's encoder does. Configurations, results, cache files and the CLI all read
 * and write through it, or through a reader or writer made from it here.
 */
public final class CniJson {
  /** Reads one document (anything after it is an error) and writes compact JSON. */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  /**
   * Like {@link #MAPPER}, but numbers with a fraction or exponent are read as BigDecimal and kept
   * as written, trailing zeros too, so a network configuration or a cache entry passes through
   * without a digit rounded or dropped ({@code 1.0} stays {@code 1.0}; stripped to {@code 1} it
   * would read back as an integer, a different node). A number whose exponent a BigDecimal cannot
   * hold ({@code 1e2147483648}) comes out as a NumberFormatException, not a JacksonException.
   */
  public static final ObjectReader EXACT_READER =
      MAPPER
          .reader()
          .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .without(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES);

  /** Indented output for people (the CLI). */
  public static final ObjectWriter PRETTY_WRITER = MAPPER.writerWithDefaultPrettyPrinter();

  private CniJson() {}
}
