package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a sandbox leaves on the host outside the fixture's directory when its shim is killed rather
 * than stopped: its cgroup in every hierarchy ({@code k8s.io/<id>}, cgroupfs driver) and its shim's
 * socket under {@code /run/containerd/s}.
 */
final class SandboxLeftovers {
  private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");

  private SandboxLeftovers() {}

  /** Removes the leftovers of sandbox {@code id}; adds what could not be removed to problems. */
  static void remove(Path containerdSocket, String id, List<String> problems) {
    deleteIfExists(
        ShimProcesses.socketFile(containerdSocket, ContainerdFixture.K8S_NAMESPACE, id), problems);
    // cgroup v2 has one hierarchy at the root; v1 one per controller directory.
    deleteIfExists(CGROUP_ROOT.resolve(ContainerdFixture.K8S_NAMESPACE).resolve(id), problems);
    try (DirectoryStream<Path> hierarchies = Files.newDirectoryStream(CGROUP_ROOT)) {
      for (Path hierarchy : hierarchies) {
        if (Files.isDirectory(hierarchy)) {
          deleteIfExists(hierarchy.resolve(ContainerdFixture.K8S_NAMESPACE).resolve(id), problems);
        }
      }
    } catch (IOException e) {
      problems.add("cannot list " + CGROUP_ROOT + ": " + e.getMessage());
    }
  }

  /** A cgroup directory is removed with rmdir, which is what deleting an empty directory does. */
  private static void deleteIfExists(Path path, List<String> problems) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      problems.add("cannot remove " + path + ": " + e);
    }
  }
}
