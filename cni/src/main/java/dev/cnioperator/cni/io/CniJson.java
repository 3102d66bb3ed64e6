package dev.cnioperator.cni.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.Optional;

/**
 * The library's one Jackson mapper, configured once: it reads exactly one JSON document, as Go's
 * {@code json.Unmarshal} does (Jackson on its own ignores whatever follows the first value), and
 * writes compactly, as Go's encoder does. Configurations, results, cache files and the CLI all read
 * and write through it, or through a reader or writer made from it here.
 */
public final class CniJson {
  /**
   * Reads one document (anything after it is an error) and writes compact JSON, decimals so that
   * they read back as the same decimal ({@link #decimal}).
   */
  public static final ObjectMapper MAPPER =
      JsonMapper.builder(
              JsonFactory.builder()
                  .addDecorator((factory, generator) -> new ExactDecimals(generator))
                  .build())
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .build();

  /**
   * {@code json} as a JSON object; empty when it is none (an array, a scalar, null, or not JSON at
   * all, as a file being written may be).
   */
  public static Optional<ObjectNode> object(byte[] json) {
    if (json == null) {
      return Optional.empty();
    }
    try {
      return MAPPER.readTree(json) instanceof ObjectNode o ? Optional.of(o) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

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

  /**
   * How a decimal is written so that {@link #EXACT_READER} reads it back as the same decimal,
   * digits and scale. {@link BigDecimal#toString()} does that for most: {@code 1.0}, {@code 1E+1},
   * {@code 1E-7}. Two kinds it does not, both from numbers written with an exponent: a decimal of
   * scale 0 ({@code 1e00}, {@code -0e0}) comes out as plain digits, which read back as an integer,
   * a different node (found by {@code CacheFileFuzzTest}); and one whose normalized exponent passes
   * the int range ({@code 10e2147483647} as {@code 1.0E+2147483648}) does not read back at all.
   * Those are written as their unscaled digits and the exact exponent ({@code 1E0}, {@code
   * 10E2147483647}), which reads back as written.
   */
  static String decimal(BigDecimal value) {
    long exponent = (long) value.precision() - 1 - value.scale();
    if (value.scale() != 0 && exponent == (int) exponent) {
      return value.toString();
    }
    return value.unscaledValue() + "E" + -(long) value.scale();
  }

  /** A generator that writes decimals the way {@link #decimal} says. */
  private static final class ExactDecimals extends JsonGeneratorDelegate {
    ExactDecimals(JsonGenerator generator) {
      super(generator, false);
    }

    @Override
    public void writeNumber(BigDecimal value) throws IOException {
      if (value == null) {
        delegate.writeNull();
      } else {
        delegate.writeNumber(decimal(value));
      }
    }
  }
}
