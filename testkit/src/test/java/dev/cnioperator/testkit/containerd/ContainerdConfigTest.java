package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ContainerdConfigTest {
  private static ContainerdConfig config(
      ContainerdRelease release, ContainerdFixture.NetnsPlacement netns) {
    return new ContainerdConfig(
        release,
        Path.of("/t/containerd/root"),
        Path.of("/t/containerd/state"),
        Path.of("/t/containerd/containerd.sock"),
        Path.of("/t/node/etc/cni/net.d"),
        Path.of("/usr/lib/cni"),
        PauseImage.NAME,
        SnapshotterProbe.NATIVE,
        netns);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(ContainerdRelease.class)
  void everyPathContainerdWritesIsUnderTheFixtureAndCniPointsAtTheNode(ContainerdRelease release) {
    ContainerdConfig config = config(release, ContainerdFixture.NetnsPlacement.UNDER_STATE_DIR);

    var toml = ContainerdSettings.parse(config.toml());

    assertThat(ContainerdSettings.mismatches(ContainerdSettings.expected(config), toml)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(ContainerdRelease.class)
  void aNodesContainerdMountsTheNetworkNamespacesInVarRunNetnsAsByDefault(
      ContainerdRelease release) {
    ContainerdConfig node = config(release, ContainerdFixture.NetnsPlacement.VAR_RUN_NETNS);

    var toml = ContainerdSettings.parse(node.toml());

    assertThat(ContainerdSettings.mismatches(ContainerdSettings.expected(node), toml)).isEmpty();
    assertThat(node.toml()).contains("netns_mounts_under_state_dir = false");
  }

  @Test
  void containerdTwoGetsAVersionThreeConfigWithTheCriPluginSplitAndNoSandboxImageKey() {
    String toml =
        config(ContainerdRelease.V2_X, ContainerdFixture.NetnsPlacement.VAR_RUN_NETNS).toml();

    assertThat(ContainerdSettings.parse(toml).at("/plugins").fieldNames())
        .toIterable()
        .contains("io.containerd.cri.v1.runtime", "io.containerd.cri.v1.images");
    assertThat(toml)
        .startsWith("version = 3")
        .doesNotContain("sandbox_image")
        .doesNotContain("bin_dir =");
  }

  @Test
  void quotesAndBackslashesInPathsAreEscaped() {
    assertThat(ContainerdConfig.quote("/a \"b\"\\c")).isEqualTo("\"/a \\\"b\\\"\\\\c\"");
  }
}
