package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cnioperator.cni.result.ErrorResult;
import dev.cnioperator.cni.result.PluginErrors;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: any bytes as what a failing plugin printed. Decoding never throws at all (the caller
 * is already reporting a failure and falls back to the raw output), and a decoded error has a
 * non-negative code and non-null texts.
 */
class PluginErrorFuzzTest {

  static Stream<byte[]> seeds() {
    return Stream.of(
            "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"Invalid Configuration\","
                + "\"details\":\"Network 192.168.0.0/31 too small to allocate from\"}",
            "{\"code\":11,\"msg\":\"busy\"}",
            "{\"msg\":\"no code\"}",
            "{\"code\":4294967296}",
            "failed to find plugin \"bridge\" in path [/opt/cni/bin]")
        .map(s -> s.getBytes(StandardCharsets.UTF_8));
  }

  @MethodSource("seeds")
  @DictionaryEntries({"\"code\"", "\"msg\"", "\"details\"", "\"cniVersion\"", "-1", "1e3"})
  @FuzzTest
  void decode(byte[] stdout) {
    Optional<ErrorResult> error = PluginErrors.decode(stdout);
    error.ifPresent(
        e -> {
          assertThat(e.code()).isNotNegative();
          assertThat(e.msg()).isNotNull();
          assertThat(e.details()).isNotNull();
        });
  }
}
