package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machine's {@code /run/containerd}, which the tests' containerds touch although each keeps its
 * own state under the test's directory: every release's shims put their sockets in {@code
 * /run/containerd/s}, {@code ctr} its I/O fifos in {@code /run/containerd/fifo} unless told
 * otherwise, and a shim runc's state in {@code /run/containerd/runc/<namespace>} when no root is
 * configured; and a {@link dev.cnioperator.testkit.node.KubeletNode} makes {@code /run/containerd}
 * as the mount point of its node's socket directory (bound there in the node's own mount namespace,
 * so what its containerd makes stays in the node's directory). A containerd on the machine itself,
 * not in a node, makes them on the machine.
 *
 * <p>Whatever makes them holds them ({@link #hold}) while it runs. When the last holder in this JVM
 * lets go, each of these directories that was not there when the first took hold is removed, if it
 * is empty and no process on the machine, in any mount namespace, has a mount on it (a node of
 * another run's, whose socket directory is bound there, would lose its mount). A directory left
 * holding something is a leftover that {@code e2e/bin/host-snapshot} names.
 */
public final class HostRunContainerd {
  private static final Logger log = LoggerFactory.getLogger(HostRunContainerd.class);

  private static final HostRunContainerd MACHINE =
      new HostRunContainerd(Path.of("/run/containerd"));

  /** Parents before children: made in this order, removed in the reverse. */
  private final List<Path> dirs;

  private int holders;
  private Set<Path> existedBefore = Set.of();

  /** The directories under {@code dir} (the machine's {@code /run/containerd}, or a test's). */
  HostRunContainerd(Path dir) {
    this.dirs =
        List.of(
            dir,
            dir.resolve("s"),
            dir.resolve("fifo"),
            dir.resolve("runc"),
            dir.resolve("runc").resolve(ContainerdFixture.K8S_NAMESPACE));
  }

  /** A hold on the directories; closing it (once, or again to no effect) lets go. */
  public final class Hold implements AutoCloseable {
    private boolean closed;

    private Hold() {}

    @Override
    public void close() {
      synchronized (HostRunContainerd.this) {
        if (closed) {
          return;
        }
        closed = true;
        if (--holders == 0) {
          removeWhatWasNotThere();
        }
      }
    }
  }

  /**
   * Takes hold of the machine's {@code /run/containerd}, recording which of the directories exist
   * if this is the first hold.
   */
  public static Hold hold() {
    return MACHINE.take();
  }

  synchronized Hold take() {
    if (holders++ == 0) {
      Set<Path> existing = new HashSet<>();
      for (Path d : dirs) {
        if (Files.isDirectory(d)) {
          existing.add(d);
        }
      }
      existedBefore = existing;
    }
    return new Hold();
  }

  private void removeWhatWasNotThere() {
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
    log.info("event=host-run-containerd-released dir={} kept={}", dirs.get(0), kept);
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
