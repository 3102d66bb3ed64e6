package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ContainerdConfigTest {
  private final ContainerdConfig config =
      new ContainerdConfig(
          Path.of("/t/containerd/root"),
          Path.of("/t/containerd/state"),
          Path.of("/t/containerd/containerd.sock"),
          Path.of("/t/node/etc/cni/net.d"),
          Path.of("/usr/lib/cni"),
          PauseImage.NAME,
          SnapshotterProbe.NATIVE,
          ContainerdFixture.NetnsPlacement.UNDER_STATE_DIR);

  @Test
  void everyPathContainerdWritesIsUnderTheFixtureAndCniPointsAtTheNode() {
    String toml = config.toml();

    assertThat(toml)
        .contains("version = 2")
        .contains("root = \"/t/containerd/root\"")
        .contains("state = \"/t/containerd/state\"")
        .contains("address = \"/t/containerd/containerd.sock\"")
        .contains("address = \"/t/containerd/containerd.sock.ttrpc\"")
        .contains("path = \"/t/containerd/root/opt\"")
        .contains("Root = \"/t/containerd/state/runc\"")
        .contains("netns_mounts_under_state_dir = true")
        .contains("conf_dir = \"/t/node/etc/cni/net.d\"")
        .contains("bin_dir = \"/usr/lib/cni\"")
        .contains("sandbox_image = \"" + PauseImage.NAME + "\"")
        .contains("snapshotter = \"native\"")
        .contains("\"io.containerd.snapshotter.v1.devmapper\"");
  }

  @Test
  void aNodesContainerdMountsTheNetworkNamespacesInVarRunNetnsAsByDefault() {
    ContainerdConfig node =
        new ContainerdConfig(
            config.root(),
            config.state(),
            config.socket(),
            config.cniConfDir(),
            config.cniBinDir(),
            config.sandboxImage(),
            config.snapshotter(),
            ContainerdFixture.NetnsPlacement.VAR_RUN_NETNS);

    assertThat(node.toml())
        .contains("netns_mounts_under_state_dir = false")
        .doesNotContain("netns_mounts_under_state_dir = true");
  }

  @Test
  void quotesAndBackslashesInPathsAreEscaped() {
    assertThat(ContainerdConfig.quote("/a \"b\"\\c")).isEqualTo("\"/a \\\"b\\\"\\\\c\"");
  }
}
