package dev.cnioperator.testkit.containerd;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the test containerd's snapshotter: {@code overlayfs} (what nodes run) when this kernel lets
 * us mount an overlay on the fixture's filesystem, {@code native} (plain copies) otherwise.
 */
public final class SnapshotterProbe {
  private static final Logger log = LoggerFactory.getLogger(SnapshotterProbe.class);

  static final String OVERLAYFS = "overlayfs";
  static final String NATIVE = "native";

  private SnapshotterProbe() {}

  /** Mounts a throw-away overlay under {@code dir} and removes it again. */
  static String pick(Path dir) {
    String chosen = overlayMountable(dir) ? OVERLAYFS : NATIVE;
    log.info("event=containerd-snapshotter chosen={}", chosen);
    return chosen;
  }

  /**
   * Whether this kernel lets us mount an overlay on {@code dir}'s file system (what a runtime's
   * overlay snapshotter or storage driver does): mounts a throw-away one under {@code dir} and
   * removes it again.
   */
  public static boolean overlayMountable(Path dir) {
    Path probe = dir.resolve("overlay-probe");
    try {
      for (String sub : new String[] {"lower", "upper", "work", "merged"}) {
        Files.createDirectories(probe.resolve(sub));
      }
      Path merged = probe.resolve("merged");
      CommandResult mount =
          Commands.run(
              "mount",
              "-t",
              "overlay",
              "overlay",
              "-o",
              "lowerdir=%s,upperdir=%s,workdir=%s"
                  .formatted(probe.resolve("lower"), probe.resolve("upper"), probe.resolve("work")),
              merged.toString());
      if (mount.ok()) {
        Commands.run("umount", merged.toString()).orThrow("umount " + merged);
      } else {
        log.info("event=overlay-refused dir={} error=\"{}\"", dir, mount.stderr().strip());
      }
      return mount.ok();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot probe overlay mounts under " + dir, e);
    } finally {
      HostMounts.deleteTree(probe);
    }
  }
}
