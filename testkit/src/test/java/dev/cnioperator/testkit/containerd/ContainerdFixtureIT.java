package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fixture cleans up after the faults tests inflict on it: a containerd killed with SIGKILL, and
 * one whose state was wiped while its sandboxes still ran.
 */
class ContainerdFixtureIT {
  @TempDir Path testDir;

  private String network;
  private Path confDir;
  private ContainerdFixture containerd;

  @BeforeEach
  void setUp() throws IOException {
    Prerequisites.requireRoot();
    network = TestNames.unique("fix");
    confDir = Files.createDirectories(testDir.resolve("net.d"));
    Files.writeString(
        confDir.resolve("10-" + network + ".conflist"),
        """
        {"cniVersion": "1.0.0", "name": "%s", "plugins": [{"type": "bridge", "bridge": "%s",
          "ipam": {"type": "host-local", "dataDir": "%s",
                   "ranges": [[{"subnet": "10.200.100.0/24"}]]}}]}
        """
            .formatted(network, network, testDir.resolve("ipam")));
    containerd = ContainerdFixture.start(testDir, confDir, ToolPaths.debianPluginDir());
  }

  @AfterEach
  void tearDown() throws IOException {
    try {
      containerd.close();
    } finally {
      Commands.run("ip", "link", "del", network);
      for (Path entry : ContainerdFixture.cniCacheEntries(network)) {
        Files.deleteIfExists(entry);
      }
    }
  }

  @Test
  void closeAfterSigkillTearsTheSandboxesDownThroughARestartedContainerd() throws IOException {
    List<String> ids = List.of(runp("web-1"), runp("web-2"));
    assertThat(ContainerdFixture.cniCacheEntries(network)).hasSize(2);

    containerd.kill9();
    assertThat(containerd.isRunning()).isFalse();
    containerd.close();

    assertNothingLeft(ids);
    assertThat(ContainerdFixture.cniCacheEntries(network))
        .as("containerd ran the DEL of each sandbox")
        .isEmpty();
  }

  @Test
  void closeAfterTheRuntimeStateWasWipedKillsTheOrphanedSandboxes() throws IOException {
    List<String> ids = List.of(runp("web-3"));
    assertThat(ShimProcesses.of(containerd.socket())).hasSize(1);
    assertThat(ShimProcesses.socketFile(containerd.socket(), "k8s.io", ids.get(0))).exists();

    containerd.kill9();
    // containerd's metadata database goes: after a restart it knows no sandbox, but the shim, the
    // pause process and their mounts are still there.
    Files.delete(containerd.rootDir().resolve("io.containerd.metadata.v1.bolt").resolve("meta.db"));
    containerd.close();

    assertNothingLeft(ids);
  }

  private String runp(String name) {
    return containerd.runPodSandbox(name, "fixture", UUID.randomUUID().toString());
  }

  private void assertNothingLeft(List<String> ids) throws IOException {
    assertThat(ShimProcesses.of(containerd.socket())).isEmpty();
    assertThat(HostMounts.under(containerd.dir())).isEmpty();
    assertThat(containerd.dir()).doesNotExist();
    for (String id : ids) {
      assertThat(Path.of("/sys/fs/cgroup/memory/k8s.io", id)).doesNotExist();
      assertThat(ShimProcesses.socketFile(containerd.socket(), "k8s.io", id)).doesNotExist();
      assertThat(cacheEntriesOfSandbox(id))
          .as("libcni's cache entries of sandbox %s, its loopback's (cni-loopback) too", id)
          .isEmpty();
    }
  }

  private static List<Path> cacheEntriesOfSandbox(String id) throws IOException {
    Path results = ContainerdFixture.CNI_CACHE_DIR.resolve("results");
    if (!Files.isDirectory(results)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(results)) {
      return entries.filter(p -> p.getFileName().toString().contains("-" + id + "-")).toList();
    }
  }
}
