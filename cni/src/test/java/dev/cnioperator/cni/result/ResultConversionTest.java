package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conversion table: every example result in resources/results/conversions converted to every
 * version, compared byte for byte (key order included) with the JSON libcni would marshal. The
 * expectations were written by applying libcni's converters by hand; the libcni-testresult example
 * repeats libcni's own test expectations, and every cross-version expectation was checked once
 * against the output of libcni v1.3.0's {@code GetAsVersion} + {@code json.Marshal}. Same-version
 * expectations are the input itself: a parsed result keeps its JSON, unknown fields included. Each
 * example's {@code canonical} is libcni v1.3.0's own {@code json.Marshal} of the parsed input.
 */
class ResultConversionTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final List<String> TABLE_VERSIONS =
      List.of("0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0");

  record Example(String name, JsonNode input, JsonNode canonical, JsonNode expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Example> examples() {
    try {
      Path dir = Path.of(ResultConversionTest.class.getResource("/results/conversions").toURI());
      List<Example> out = new ArrayList<>();
      try (Stream<Path> files = Files.list(dir)) {
        for (Path file : files.sorted().toList()) {
          JsonNode root = MAPPER.readTree(file.toFile());
          String name = file.getFileName().toString().replace(".json", "");
          out.add(
              new Example(name, root.get("input"), root.get("canonical"), root.get("expected")));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<Arguments> conversions() {
    List<Arguments> out = new ArrayList<>();
    for (Example example : examples()) {
      example
          .expected()
          .fieldNames()
          .forEachRemaining(target -> out.add(Arguments.of(example, target)));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("conversions")
  void convertsAsLibcniDoes(Example example, String target) throws IOException {
    Result source = Results.parse(example.input());
    CniVersion to = CniVersion.parse(target).orElseThrow();
    JsonNode expected = example.expected().get(target);

    if (expected.has("error")) {
      assertThatThrownBy(() -> source.convertTo(to))
          .isInstanceOf(CniException.class)
          .extracting(e -> ((CniException) e).code())
          .isEqualTo(CniErrorCode.valueOf(expected.get("error").asText()).code());
      return;
    }
    Result converted = source.convertTo(to);

    assertThat(converted.cniVersion()).isEqualTo(to);
    assertThat(MAPPER.writeValueAsString(converted.toJson()))
        .isEqualTo(MAPPER.writeValueAsString(expected));
    // What a conversion writes reads back to the same typed view.
    Result reread = Results.parse(converted.toJson());
    assertThat(reread.ips()).isEqualTo(converted.ips());
    assertThat(reread.routes()).isEqualTo(converted.routes());
    assertThat(reread.interfaces()).isEqualTo(converted.interfaces());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void canonicalJsonIsWhatLibcniMarshals(Example example) throws IOException {
    Result source = Results.parse(example.input());

    assertThat(MAPPER.writeValueAsString(source.toCanonicalJson()))
        .isEqualTo(MAPPER.writeValueAsString(example.canonical()));
  }

  @Test
  void tableCoversEveryPairOfVersions() {
    Set<String> sources = new TreeSet<>();
    for (Example example : examples()) {
      sources.add(Results.parse(example.input()).cniVersion().toString());
      for (String target : TABLE_VERSIONS) {
        assertThat(example.expected().has(target))
            .as("%s has an expectation for %s", example.name(), target)
            .isTrue();
      }
    }
    assertThat(sources).containsAll(TABLE_VERSIONS);
  }

  @Test
  void sameVersionKeepsTheResultItself() {
    Result source = Results.parse(examples().get(0).input());

    assertThat(source.convertTo(source.cniVersion())).isSameAs(source);
  }

  @Test
  void unknownTargetVersionIsIncompatible() {
    Result source = Results.parse(examples().get(0).input());

    assertThatThrownBy(() -> source.convertTo(new CniVersion(2, 0, 0)))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("2.0.0")
        .extracting(e -> ((CniException) e).code())
        .isEqualTo(CniErrorCode.INCOMPATIBLE_VERSION.code());
  }
}
