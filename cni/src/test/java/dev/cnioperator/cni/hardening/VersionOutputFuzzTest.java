package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.result.Results;
import dev.cnioperator.cni.result.VersionResult;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: any bytes as a plugin's VERSION output. Only {@link CniException} may escape, and a
 * parsed answer writes back in the wire form and re-parses to itself.
 */
class VersionOutputFuzzTest {

  static Stream<byte[]> seeds() {
    return Stream.of(
            "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[\"0.1.0\",\"0.2.0\",\"0.3.0\","
                + "\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]}",
            "{\"cniVersion\":\"0.2.0\"}",
            "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"1.0.0\",\"2.0.0\"]}",
            "{\"cniVersion\":\"0.4\",\"supportedVersions\":[]}")
        .map(s -> s.getBytes(StandardCharsets.UTF_8));
  }

  @MethodSource("seeds")
  @DictionaryEntries({"\"cniVersion\"", "\"supportedVersions\"", "\"0.2.0\"", "\"1.1.0\"", "."})
  @FuzzTest
  void parseVersion(byte[] output) {
    VersionResult version;
    try {
      version = Results.parseVersion(output);
    } catch (CniException refused) {
      assertThat(refused.code())
          .isIn(CniErrorCode.INVALID_PLUGIN_OUTPUT.code(), CniErrorCode.DECODING_FAILURE.code());
      return;
    }
    version.knownSupportedVersions();
    version.newestSupported();
    byte[] written = version.toJson().toString().getBytes(StandardCharsets.UTF_8);
    assertThat(Results.parseVersion(written)).isEqualTo(version);
  }
}
