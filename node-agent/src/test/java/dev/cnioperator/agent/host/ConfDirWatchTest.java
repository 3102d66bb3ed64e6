package dev.cnioperator.agent.host;

import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfDirWatchTest {
  @TempDir Path parent;

  @Test
  void aDirectoryDeletedAndMadeAgainIsWatchedAgainFromTheNextPass() throws Exception {
    Path dir = Files.createDirectory(parent.resolve("net.d"));
    AtomicInteger wakes = new AtomicInteger();
    try (ConfDirWatch watch = new ConfDirWatch(dir, wakes::incrementAndGet)) {
      watch.active(true);
      Files.writeString(dir.resolve("10-a.conflist"), "{}");
      await("a wake-up for the write").atMost(Duration.ofSeconds(10)).until(() -> wakes.get() >= 1);

      Files.delete(dir.resolve("10-a.conflist"));
      Files.delete(dir);
      int beforeDeletion = wakes.get();
      await("a wake-up for the directory's deletion")
          .atMost(Duration.ofSeconds(10))
          .until(() -> wakes.get() > beforeDeletion);

      // The pass that wake-up starts makes the directory again and still wants the watch.
      Files.createDirectory(dir);
      watch.active(true);
      int beforeRewrite = wakes.get();
      Files.writeString(dir.resolve("10-b.conflist"), "{}");
      await("a wake-up for a write into the new directory")
          .atMost(Duration.ofSeconds(10))
          .until(() -> wakes.get() > beforeRewrite);
    }
  }
}
