package dev.cnioperator.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Watches many nodes' conf dirs from outside the agents, as the container runtime would see them:
 * inotify on every conf dir (as containerd and CRI-O watch theirs), re-reading a node's file only
 * when its directory changed. A tight poll of N files would itself take a core of this 2-core
 * machine away from the product while it is measured (the floor has no such poll).
 */
final class ConflistWait {
  /** A full re-read this often, in case the kernel dropped events (queue overflow). */
  private static final long FULL_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private ConflistWait() {}

  /**
   * Nanos (System.nanoTime) when the last of {@code confDirs} held {@code fileName} containing
   * {@code marker}, or when every file was gone if {@code marker} is null.
   */
  static long until(List<Path> confDirs, String fileName, String marker, Duration timeout)
      throws InterruptedException {
    try (WatchService watcher = FileSystems.getDefault().newWatchService()) {
      Map<WatchKey, Path> pending = new HashMap<>();
      for (Path dir : confDirs) {
        Files.createDirectories(dir);
        WatchKey key =
            dir.register(
                watcher,
                StandardWatchEventKinds.ENTRY_CREATE,
                StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        pending.put(key, dir.resolve(fileName));
      }
      // Registered first, checked after: a file renamed in between is seen either way.
      pending.values().removeIf(f -> done(f, marker));
      long deadline = System.nanoTime() + timeout.toNanos();
      long fullCheck = System.nanoTime() + FULL_CHECK_NANOS;
      while (!pending.isEmpty()) {
        long now = System.nanoTime();
        if (now > deadline) {
          throw new IllegalStateException(
              pending.size()
                  + " of "
                  + confDirs.size()
                  + " nodes not converged after "
                  + timeout
                  + ", first "
                  + pending.values().iterator().next());
        }
        if (now > fullCheck) {
          pending.values().removeIf(f -> done(f, marker));
          fullCheck = now + FULL_CHECK_NANOS;
        }
        WatchKey key = watcher.poll(50, TimeUnit.MILLISECONDS);
        while (key != null) {
          key.pollEvents();
          Path file = pending.get(key);
          if (file != null && done(file, marker)) {
            pending.remove(key);
            key.cancel();
          } else {
            key.reset();
          }
          key = watcher.poll();
        }
      }
      return System.nanoTime();
    } catch (ClosedWatchServiceException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean done(Path file, String marker) {
    if (marker == null) {
      return !Files.exists(file);
    }
    try {
      return Files.readString(file).contains(marker);
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
