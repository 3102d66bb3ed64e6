package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The machine's cgroup hierarchies: each v1 hierarchy (not its alias symlinks), or the v2 root. */
public final class CgroupHierarchies {
  private static final Path ROOT = Path.of("/sys/fs/cgroup");

  private CgroupHierarchies() {}

  /** The hierarchies' roots. */
  public static List<Path> roots() {
    if (Files.exists(ROOT.resolve("cgroup.controllers"))) {
      return List.of(ROOT);
    }
    List<Path> roots = new ArrayList<>();
    try (var entries = Files.list(ROOT)) {
      for (Path h : entries.sorted().toList()) {
        if (Files.isDirectory(h, LinkOption.NOFOLLOW_LINKS)
            && Files.exists(h.resolve("cgroup.procs"))) {
          roots.add(h);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + ROOT, e);
    }
    return roots;
  }

  /** The cgroup {@code name} (a path below the root) in each hierarchy. */
  public static List<Path> each(String name) {
    return roots().stream().map(r -> r.resolve(name)).toList();
  }

  /**
   * Kills every process in the cgroup tree {@code dir} and removes the tree, deepest first; returns
   * what could not be removed. A tree that is not there is nothing to do.
   */
  public static List<String> removeTree(Path dir) {
    List<String> problems = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return problems;
    }
    try (var walk = Files.walk(dir)) {
      List<Path> all = walk.filter(Files::isDirectory).toList();
      for (Path d : all) {
        for (String pid : Files.readAllLines(d.resolve("cgroup.procs"))) {
          if (!pid.isBlank()) {
            ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
          }
        }
      }
      for (int i = all.size() - 1; i >= 0; i--) {
        removeOne(all.get(i), problems);
      }
    } catch (IOException e) {
      problems.add("cannot remove cgroup " + dir + ": " + e);
    }
    return problems;
  }

  /** rmdir, again for a while when killed processes have not left the cgroup yet. */
  private static void removeOne(Path d, List<String> problems) {
    for (int attempt = 0; ; attempt++) {
      try {
        Files.deleteIfExists(d);
        return;
      } catch (IOException e) {
        if (attempt == 50) {
          problems.add("cannot remove cgroup " + d + ": " + e);
          return;
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          problems.add("interrupted removing cgroup " + d);
          return;
        }
      }
    }
  }
}
