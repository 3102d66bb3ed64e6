package dev.cnioperator.agent.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.plugin.BinaryAction.Owner;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NetworkPluginsTest {
  private static final PluginOutcome BRIDGE =
      new PluginOutcome("bridge", "a".repeat(64), Owner.agent, List.of("0.4.0", "1.0.0"), null);
  private static final PluginOutcome HOST_LOCAL =
      new PluginOutcome("host-local", "b".repeat(64), Owner.external, List.of("1.0.0"), null);

  @Test
  void networkWhosePluginsAllSupportItsVersionHasNoProblem() {
    NetworkPlugins n = new NetworkPlugins("n", "1.0.0", List.of("bridge", "host-local"));
    assertThat(n.problem(Map.of("bridge", BRIDGE, "host-local", HOST_LOCAL))).isEmpty();
  }

  @Test
  void pluginThatDoesNotSpeakTheNetworksVersionIsNamed() {
    NetworkPlugins n = new NetworkPlugins("n", "1.1.0", List.of("bridge", "host-local"));
    assertThat(n.problem(Map.of("bridge", BRIDGE, "host-local", HOST_LOCAL)))
        .contains("plugin bridge does not support cniVersion 1.1.0 (it supports 0.4.0, 1.0.0)");
  }

  @Test
  void missingPluginIsNamed() {
    NetworkPlugins n = new NetworkPlugins("n", "1.0.0", List.of("bridge", "macvlan"));
    assertThat(n.problem(Map.of("bridge", BRIDGE))).contains("plugin macvlan is missing");
  }

  @Test
  void refusedDownloadIsTheReason() {
    PluginOutcome refused = BRIDGE.withError("sha256 mismatch");
    NetworkPlugins n = new NetworkPlugins("n", "1.0.0", List.of("bridge"));
    assertThat(n.problem(Map.of("bridge", refused))).contains("sha256 mismatch");
  }

  @Test
  void versionsAreAskedOncePerBinaryContent() {
    int[] calls = {0};
    PluginVersions versions =
        new PluginVersions(
            name -> {
              calls[0]++;
              return List.of("1.0.0");
            });
    versions.annotate(List.of(BRIDGE));
    List<PluginOutcome> second = versions.annotate(List.of(BRIDGE));
    assertThat(calls[0]).isEqualTo(1);
    assertThat(second.get(0).supportedVersions()).containsExactly("1.0.0");
  }
}
