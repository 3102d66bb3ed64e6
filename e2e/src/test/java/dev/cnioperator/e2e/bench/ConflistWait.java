package dev.cnioperator.e2e.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Watches many nodes' conf dirs from outside the agents, as the container runtime would see them: a
 * tight poll that only re-reads the nodes not yet done.
 */
final class ConflistWait {
  private ConflistWait() {}

  /**
   * Nanos (System.nanoTime) when the last of {@code confDirs} held {@code fileName} containing
   * {@code marker}, or when every file was gone if {@code marker} is null.
   */
  static long until(List<Path> confDirs, String fileName, String marker, Duration timeout)
      throws InterruptedException {
    List<Path> pending = new ArrayList<>();
    confDirs.forEach(d -> pending.add(d.resolve(fileName)));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      pending.removeIf(f -> done(f, marker));
      long now = System.nanoTime();
      if (pending.isEmpty()) {
        return now;
      }
      if (now > deadline) {
        throw new IllegalStateException(
            pending.size()
                + " of "
                + confDirs.size()
                + " nodes not converged after "
                + timeout
                + ", first "
                + pending.get(0));
      }
      Thread.sleep(2);
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
      throw new IllegalStateException("cannot read " + file, e);
    }
  }
}
