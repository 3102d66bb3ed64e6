package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cnioperator.cni.config.CniConfigException;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.ValidationLevel;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: any bytes as a {@code .conflist}. Parsing either refuses them with {@link
 * CniConfigException} carrying at least one problem, or gives a list whose canonical rendering
 * parses back to the same bytes and sha256; and whatever the full rules accept, the executable
 * level accepts too.
 */
class ConflistFuzzTest {

  @MethodSource("dev.cnioperator.cni.hardening.FuzzSeeds#conflists")
  @DictionaryEntries({
    "\"cniVersion\"",
    "\"cniVersions\"",
    "\"name\"",
    "\"plugins\"",
    "\"type\"",
    "\"ipam\"",
    "\"dns\"",
    "\"nameservers\"",
    "\"capabilities\"",
    "\"disableCheck\"",
    "\"disableGC\"",
    "\"runtimeConfig\"",
    "\"args\"",
    "\"prevResult\"",
    "\"cni.dev/",
    "\"1.1.0\"",
    "\"1.0.0\"",
    "\"0.4.0\"",
    "\"0.3.1\"",
    "\"0.3.0\"",
    "\"0.2.0\"",
    "\"10.200.0.1\"",
    "\"fe80::1\"",
    "..",
    "\\u0000",
    "1e400",
    "true",
    "null"
  })
  @FuzzTest
  void parseValidateRender(byte[] input) {
    NetworkConfigList list;
    try {
      list = NetworkConfigList.parse(input, "fuzz.conflist");
    } catch (CniConfigException refused) {
      FuzzChecks.describesProblems(refused);
      FuzzChecks.refusedAtExecutableLevelOnlyIfAtFull(
          () -> NetworkConfigList.parse(input, "fuzz.conflist", ValidationLevel.EXECUTABLE));
      return;
    }
    FuzzChecks.rendersCanonically(list);
    assertThat(NetworkConfigList.parse(input, "fuzz.conflist", ValidationLevel.EXECUTABLE))
        .isEqualTo(list);
    FuzzChecks.derivesRequests(list);
  }
}
