package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Directories of the machine that the tests make as the runtime would, though each test keeps its
 * own state elsewhere, and that must go again with the last test using them.
 *
 * <p>{@link #RUN_CONTAINERD}: the machine's {@code /run/containerd}, which the tests' containerds
 * touch: every release's shims put their sockets in {@code /run/containerd/s}, {@code ctr} its I/O
 * fifos in {@code /run/containerd/fifo} unless told otherwise, and a shim runc's state in {@code
 * /run/containerd/runc/<namespace>} when no root is configured; and a {@link
 * dev.cnioperator.testkit.node.KubeletNode} makes {@code /run/containerd} as the mount point of its
 * node's socket directory (bound there in the node's own mount namespace, so what its containerd
 * makes stays in the node's directory). A containerd on the machine itself, not in a node, makes
 * them on the machine. {@link #VAR_LIB_CNI}: {@code /var/lib/cni}, the mount point a sandboxed
 * agent binds its own state directory on ({@link dev.cnioperator.testkit.node.SandboxNamespaces}).
 *
 * <p>Whatever makes them holds them ({@link #hold}) while it runs. When the last holder on the
 * machine lets go (test JVMs running at once, failsafe's forks and modules built side by side, each
 * hold through one lock file in the checkout's {@code target/}), each of these directories that was
 * not there when the first took hold is removed, if it is empty and no process on the machine, in
 * any mount namespace, has a mount on it (a node of another run's, whose socket directory is bound
 * there, would lose its mount). A directory left holding something is a leftover that {@code
 * e2e/bin/host-snapshot} names.
 *
 * <p>The lock file has two one-byte regions: the gate, locked exclusively around a JVM's first take
 * and last release, and the hold, locked shared by every JVM holding. A JVM that can lock the hold
 * exclusively under the gate is alone: taking, it records what is there (in the file beside the
 * lock, {@code .before}); releasing, it removes what was not.
 */
public final class HostDirs {
  private static final Logger log = LoggerFactory.getLogger(HostDirs.class);

  private static final long GATE = 0;
  private static final long HOLD = 1;

  /** The machine's {@code /run/containerd} and the directories the runtimes make in it. */
  public static final HostDirs RUN_CONTAINERD =
      new HostDirs(Path.of("/run/containerd"), lockFile("run-containerd"));

  /**
   * The {@code crio} cgroup of each cgroup hierarchy of the machine, which CRI-O makes as the
   * parent of its containers' cgroups when the kubelet gives none (as the test kit's, without QoS
   * cgroups).
   */
  public static final HostDirs CRIO_CGROUPS =
      new HostDirs(CgroupHierarchies.each("crio"), lockFile("crio-cgroups"));

  /**
   * The machine's {@code /var/lib/kubelet/device-plugins}: the kubelet's device manager listens
   * there whatever its {@code --root-dir} (a path compiled in), so a {@link
   * dev.cnioperator.testkit.node.KubeletNode} binds a directory of its own on it, in its mount
   * namespace.
   */
  public static final HostDirs VAR_LIB_KUBELET =
      new HostDirs(
          List.of(Path.of("/var/lib/kubelet"), Path.of("/var/lib/kubelet/device-plugins")),
          lockFile("var-lib-kubelet"));

  /** The machine's {@code /var/lib/cni}. */
  public static final HostDirs VAR_LIB_CNI =
      new HostDirs(List.of(Path.of("/var/lib/cni")), lockFile("var-lib-cni"));

  /** Parents before children: made in this order, removed in the reverse. */
  private final List<Path> dirs;

  private final Path lockFile;
  private final Path beforeFile;

  private int holders;
  private FileChannel channel;
  private FileLock held;

  private static Path lockFile(String name) {
    return Path.of(System.getenv().getOrDefault("CNI_OPERATOR_ROOT", "."))
        .resolve("target")
        .resolve("host-dirs-" + name + ".lock");
  }

  /**
   * The directories under {@code dir} (the machine's {@code /run/containerd}, or a test's), held
   * with the JVMs that share {@code lockFile}.
   */
  HostDirs(Path dir, Path lockFile) {
    this(
        List.of(
            dir,
            dir.resolve("s"),
            dir.resolve("fifo"),
            dir.resolve("runc"),
            dir.resolve("runc").resolve(ContainerdFixture.K8S_NAMESPACE)),
        lockFile);
  }

  HostDirs(List<Path> dirs, Path lockFile) {
    this.dirs = List.copyOf(dirs);
    this.lockFile = lockFile;
    this.beforeFile = lockFile.resolveSibling(lockFile.getFileName() + ".before");
  }

  /** A hold on the directories; closing it (once, or again to no effect) lets go. */
  public final class Hold implements AutoCloseable {
    private boolean closed;

    private Hold() {}

    @Override
    public void close() {
      synchronized (HostDirs.this) {
        if (closed) {
          return;
        }
        closed = true;
        if (--holders == 0) {
          release();
        }
      }
    }
  }

  /**
   * Takes hold of the directories, recording which of them exist if this is the first hold on the
   * machine.
   */
  public synchronized Hold hold() {
    if (holders == 0) {
      try {
        if (channel == null) {
          Files.createDirectories(lockFile.getParent());
          channel =
              FileChannel.open(
                  lockFile,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.READ,
                  StandardOpenOption.WRITE);
        }
        try (FileLock gate = channel.lock(GATE, 1, false)) {
          FileLock alone = channel.tryLock(HOLD, 1, false);
          if (alone != null) {
            try {
              List<String> existing = new ArrayList<>();
              for (Path d : dirs) {
                if (Files.isDirectory(d)) {
                  existing.add(d.toString());
                }
              }
              Files.write(beforeFile, existing);
            } finally {
              alone.release();
            }
          }
          held = channel.lock(HOLD, 1, true);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot take hold of " + dirs.get(0) + " (" + lockFile + ")", e);
      }
    }
    holders++;
    return new Hold();
  }

  private void release() {
    try (FileLock gate = channel.lock(GATE, 1, false)) {
      held.release();
      held = null;
      FileLock alone = channel.tryLock(HOLD, 1, false);
      if (alone == null) {
        log.info("event=host-dirs-kept dir={} reason=another test JVM holds them", dirs.get(0));
        return;
      }
      try {
        Set<Path> before = new HashSet<>();
        for (String line : Files.readAllLines(beforeFile)) {
          before.add(Path.of(line));
        }
        removeWhatWasNotThere(before);
      } finally {
        alone.release();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot let go of " + dirs.get(0) + " (" + lockFile + ")", e);
    }
  }

  private void removeWhatWasNotThere(Set<Path> existedBefore) {
    Set<Path> mounted = mountPointsOnTheMachine();
    List<String> kept = new ArrayList<>();
    for (int i = dirs.size() - 1; i >= 0; i--) {
      Path d = dirs.get(i);
      if (existedBefore.contains(d) || !Files.isDirectory(d)) {
        continue;
      }
      if (mounted.contains(d)) {
        kept.add(d + " (a mount point)");
        continue;
      }
      try {
        Files.delete(d);
      } catch (DirectoryNotEmptyException e) {
        kept.add(d + " (not empty)");
      } catch (NoSuchFileException e) {
        // gone already
      } catch (IOException e) {
        kept.add(d + " (" + e + ")");
      }
    }
    log.info("event=host-dirs-released dir={} kept={}", dirs.get(0), kept);
  }

  /** Every mount point of every mount namespace a process on the machine is in. */
  private static Set<Path> mountPointsOnTheMachine() {
    Set<Path> points = new HashSet<>();
    Set<String> namespaces = new HashSet<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        try {
          if (!namespaces.add(Files.readSymbolicLink(proc.resolve("ns/mnt")).toString())) {
            continue;
          }
          for (String line : Files.readAllLines(proc.resolve("mountinfo"))) {
            String[] fields = line.split(" ");
            if (fields.length > 4) {
              points.add(Path.of(unescape(fields[4])));
            }
          }
        } catch (IOException | RuntimeException e) {
          // the process is gone, or not ours to read
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return points;
  }

  /** mountinfo writes a space, tab, newline and backslash in a path as an octal escape. */
  private static String unescape(String field) {
    return field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\");
  }
}
