package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the tests' containerds make in {@code /run/containerd} goes with the last of them, and only
 * that: here on a directory of the test's standing in for the machine's.
 */
class HostDirsTest {
  @TempDir Path tmp;

  @Test
  void theDirectoriesTheHoldersMadeGoWithTheLastHolder() throws IOException {
    Path run = tmp.resolve("run-containerd");
    HostDirs dirs = new HostDirs(run, tmp.resolve("holds.lock"));

    HostDirs.Hold node = dirs.hold();
    HostDirs.Hold fixture = dirs.hold();
    // A node's mount point, a shim's socket dir, ctr's fifo dir, runc's state of namespace k8s.io.
    for (String d : new String[] {"s", "fifo", "runc/k8s.io"}) {
      Files.createDirectories(run.resolve(d));
    }
    fixture.close();
    assertThat(run.resolve("s")).as("while a holder is left").isDirectory();

    node.close();
    node.close();
    assertThat(run).doesNotExist();
  }

  @Test
  void whatWasThereBeforeStaysAndSoDoesWhatHoldsSomething() throws IOException {
    Path run = Files.createDirectories(tmp.resolve("run-containerd"));
    Files.createDirectories(run.resolve("runc"));
    Files.writeString(run.resolve("containerd.sock"), "a system containerd's");
    HostDirs dirs = new HostDirs(run, tmp.resolve("holds.lock"));

    try (HostDirs.Hold hold = dirs.hold()) {
      Files.createDirectories(run.resolve("runc/k8s.io"));
      Files.createDirectories(run.resolve("fifo"));
      Files.createDirectories(run.resolve("s"));
      Files.writeString(run.resolve("s/0123abcd"), "a killed shim's socket");
    }

    assertThat(run.resolve("runc/k8s.io")).doesNotExist();
    assertThat(run.resolve("fifo")).doesNotExist();
    assertThat(run.resolve("s")).as("a leftover, for host-snapshot to name").isDirectory();
    assertThat(run.resolve("runc")).isDirectory();
    assertThat(run.resolve("containerd.sock")).exists();
  }
}
