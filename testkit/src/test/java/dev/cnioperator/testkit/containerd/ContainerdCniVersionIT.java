package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A network whose only version is 1.1.0, on each release: containerd 2.x (libcni 1.3) runs pods on
 * it; 1.6 and 1.7 (libcni 1.1) load it and report the network ready, yet every sandbox's ADD fails
 * on the plugin's 1.1.0 result. A node of those releases looks healthy and starts no pod, which is
 * why the agent's probe fails a 1.1.0 network there, saying to give those nodes a 1.0.0 network
 * (their libcni reads {@code cniVersion} alone; the product's API takes {@code cniVersions} only
 * beside a {@code cniVersion} of 1.1.0).
 */
class ContainerdCniVersionIT {
  @TempDir Path testDir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(ContainerdRelease.class)
  void onlyContainerdTwoRunsASandboxOnAOneOneZeroNetwork(ContainerdRelease release)
      throws IOException {
    Prerequisites.requireRoot();
    String network = TestNames.unique("v110");
    Path confDir = Files.createDirectories(testDir.resolve("net.d"));
    Files.writeString(
        confDir.resolve("10-" + network + ".conflist"),
        """
        {"cniVersion": "1.1.0", "name": "%s", "plugins": [{"type": "bridge", "bridge": "%s",
          "ipam": {"type": "host-local", "dataDir": "%s", "ranges": [[{"subnet": "%s"}]]}}]}
        """
            .formatted(network, network, testDir.resolve("ipam"), TestNames.podCidr()));
    try (ContainerdFixture containerd =
        ContainerdFixture.start(
            testDir,
            confDir,
            ToolPaths.pluginDir(),
            List.of(),
            ContainerdFixture.NetnsPlacement.UNDER_STATE_DIR,
            release)) {
      CommandResult info = containerd.crictl("info").orThrow("crictl info");
      assertThat(info.stdout()).contains("\"lastCNILoadStatus\": \"OK\"");

      Path pod = containerd.writePodSandboxConfig("v110", "cni-version-it", network);
      CommandResult runp = containerd.crictl("runp", pod.toString());

      if (release == ContainerdRelease.V2_X) {
        assertThat(runp.ok()).as(runp.stderr()).isTrue();
        assertThat(ContainerdFixture.cniCacheEntries(network)).hasSize(1);
      } else {
        assertThat(runp.ok()).isFalse();
        assertThat(runp.stderr()).contains("unsupported CNI result version \\\"1.1.0\\\"");
        assertThat(ContainerdFixture.cniCacheEntries(network)).isEmpty();
      }
    } finally {
      Commands.run("ip", "link", "del", network);
    }
    assertThat(ContainerdFixture.cniCacheEntries(network)).as("containerd ran the DEL").isEmpty();
  }
}
