package dev.cnioperator.agent.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.agent.plugin.BinaryAction.Install;
import dev.cnioperator.agent.plugin.BinaryAction.Keep;
import dev.cnioperator.agent.plugin.BinaryAction.Owner;
import dev.cnioperator.agent.plugin.BinaryAction.Unavailable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginBinarySyncTest {
  private static final String A = "a".repeat(64);
  private static final String B = "b".repeat(64);
  private static final String C = "c".repeat(64);
  private final PluginBinarySync sync = new PluginBinarySync();

  private List<BinaryAction> plan(
      Map<String, PluginRequest> requested,
      Map<String, String> bundled,
      Manifest manifest,
      Map<String, String> disk) {
    return sync.plan(Set.of("bridge"), requested, bundled, manifest, disk);
  }

  @Test
  void missingBundledPluginIsInstalledFromTheBundle() {
    assertThat(plan(Map.of(), Map.of("bridge", A), Manifest.empty(), Map.of()))
        .containsExactly(new Install("bridge", null, A, WriteReason.CREATE));
  }

  @Test
  void binaryTheAgentDidNotInstallIsKeptEvenWhenTheBundleDiffers() {
    assertThat(plan(Map.of(), Map.of("bridge", A), Manifest.empty(), Map.of("bridge", B)))
        .containsExactly(new Keep("bridge", Owner.external));
  }

  @Test
  void binaryTheAgentDidNotInstallIsNeverReplacedByADownload() {
    PluginRequest r = new PluginRequest("bridge", "my-bridge", "http://x/bridge", A);
    assertThat(plan(Map.of("bridge", r), Map.of(), Manifest.empty(), Map.of("bridge", B)))
        .containsExactly(new Keep("bridge", Owner.external));
  }

  @Test
  void ownBinaryOlderThanTheBundleIsUpdated() {
    Manifest m = Manifest.empty().withBinary("bridge", B, "bundled");
    assertThat(plan(Map.of(), Map.of("bridge", A), m, Map.of("bridge", B)))
        .containsExactly(new Install("bridge", null, A, WriteReason.UPDATE));
  }

  @Test
  void ownBinaryChangedBySomeoneElseIsRestored() {
    Manifest m = Manifest.empty().withBinary("bridge", A, "bundled");
    assertThat(plan(Map.of(), Map.of("bridge", A), m, Map.of("bridge", C)))
        .containsExactly(new Install("bridge", null, A, WriteReason.RESTORE_CHANGED));
  }

  @Test
  void ownBinaryRemovedBySomeoneElseIsRestored() {
    Manifest m = Manifest.empty().withBinary("bridge", A, "bundled");
    assertThat(plan(Map.of(), Map.of("bridge", A), m, Map.of()))
        .containsExactly(new Install("bridge", null, A, WriteReason.RESTORE_REMOVED));
  }

  @Test
  void ownBinaryInSyncIsKept() {
    Manifest m = Manifest.empty().withBinary("bridge", A, "bundled");
    assertThat(plan(Map.of(), Map.of("bridge", A), m, Map.of("bridge", A)))
        .containsExactly(new Keep("bridge", Owner.agent));
  }

  @Test
  void cniPluginDownloadCarriesItsUrlAndSha256() {
    PluginRequest r = new PluginRequest("bridge", "my-bridge", "http://x/bridge", A.toUpperCase());
    assertThat(plan(Map.of("bridge", r), Map.of("bridge", B), Manifest.empty(), Map.of()))
        .containsExactly(new Install("bridge", "http://x/bridge", A, WriteReason.CREATE));
  }

  @Test
  void downloadWithoutAWellFormedSha256IsUnavailable() {
    PluginRequest r = new PluginRequest("bridge", "my-bridge", "http://x/bridge", "abc");
    assertThat(plan(Map.of("bridge", r), Map.of(), Manifest.empty(), Map.of()))
        .singleElement()
        .isInstanceOfSatisfying(
            Unavailable.class, u -> assertThat(u.message()).contains("sha256 is mandatory"));
  }

  @Test
  void neededPluginWithNoSourceIsUnavailable() {
    assertThat(plan(Map.of(), Map.of(), Manifest.empty(), Map.of()))
        .singleElement()
        .isInstanceOf(Unavailable.class);
  }
}
