package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What a sandbox leaves on the host outside the fixture's directory when its shim is killed rather
 * than stopped, or containerd lost it and never ran its DEL: its cgroup in every hierarchy ({@code
 * k8s.io/<id>}, cgroupfs driver), its shim's socket under {@code /run/containerd/s} and libcni's
 * cache entries of its attachments.
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
    removeCacheEntries(id, problems);
  }

  /**
   * libcni's cache entries of sandbox {@code id}, {@code results/<network>-<id>-<ifname>}: its
   * networks' and its loopback's (containerd attaches lo itself, as network {@code cni-loopback}).
   * containerd's DEL removes them; a sandbox that got none leaves them.
   */
  private static void removeCacheEntries(String id, List<String> problems) {
    Path results = ContainerdFixture.CNI_CACHE_DIR.resolve("results");
    if (!Files.isDirectory(results)) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(results, "*-" + id + "-*")) {
      for (Path entry : entries) {
        deleteIfExists(entry, problems);
      }
    } catch (IOException e) {
      problems.add("cannot list " + results + ": " + e.getMessage());
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
