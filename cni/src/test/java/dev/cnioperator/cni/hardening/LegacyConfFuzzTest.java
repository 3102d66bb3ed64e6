package dev.cnioperator.cni.hardening;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cnioperator.cni.config.CniConfigException;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.ValidationLevel;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: any bytes as a legacy single-plugin {@code .conf}, which libcni still loads from
 * {@code /etc/cni/net.d}. Same properties as {@link ConflistFuzzTest}: a typed refusal, or a list
 * that renders canonically and derives its requests.
 */
class LegacyConfFuzzTest {

  @MethodSource("dev.cnioperator.cni.hardening.FuzzSeeds#pluginConfs")
  @DictionaryEntries({
    "\"cniVersion\"", "\"name\"", "\"type\"", "\"ipam\"", "\"dns\"", "\"capabilities\"",
    "\"runtimeConfig\"", "\"args\"", "\"prevResult\"", "\"cni.dev/", "\"0.4.0\"", "\"0.3.1\"",
    "\"1.0.0\"", "\"0.2.0\"", "..", "/", "\\u0000"
  })
  @FuzzTest
  void parseLegacyConf(byte[] input) {
    NetworkConfigList list;
    try {
      list = NetworkConfigList.parseLegacyConf(input, "fuzz.conf");
    } catch (CniConfigException refused) {
      FuzzChecks.describesProblems(refused);
      FuzzChecks.refusedAtExecutableLevelOnlyIfAtFull(
          () -> NetworkConfigList.parseLegacyConf(input, "fuzz.conf", ValidationLevel.EXECUTABLE));
      return;
    }
    FuzzChecks.rendersCanonically(list);
    FuzzChecks.derivesRequests(list);
  }
}
