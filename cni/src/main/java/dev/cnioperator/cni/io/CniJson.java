package dev.cnioperator.cni.io;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
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
   * Like {@link #MAPPER}, but numbers with a fraction or exponent are read as BigDecimal, so a
   * network configuration passes through without a digit rounded.
   */
  public static final ObjectReader EXACT_READER =
      MAPPER.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /** Indented output for people (the CLI). */
  public static final ObjectWriter PRETTY_WRITER = MAPPER.writerWithDefaultPrettyPrinter();

  private CniJson() {}
}
