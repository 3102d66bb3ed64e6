package dev.cnioperator.agent.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfDirWatchTest {
  @TempDir Path parent;

  @Test
  void aWakeUpNamesTheFilesThatChangedAndCannotNameThemOnceTheDirectoryIsGone() throws Exception {
    Path dir = Files.createDirectory(parent.resolve("net.d"));
    List<Set<String>> wakes = new CopyOnWriteArrayList<>();
    try (ConfDirWatch watch = new ConfDirWatch(dir, wakes::add)) {
      watch.active(true);
      // A write and its rename, as the agent and most installers write: both names.
      Path temp = dir.resolve(".10-a.conflist.tmp");
      Files.writeString(temp, "{}");
      Files.move(temp, dir.resolve("10-a.conflist"), StandardCopyOption.ATOMIC_MOVE);
      await("a wake-up naming the file")
          .atMost(Duration.ofSeconds(10))
          .until(() -> named(wakes).contains("10-a.conflist"));
      assertThat(named(wakes)).containsExactlyInAnyOrder(".10-a.conflist.tmp", "10-a.conflist");

      Files.delete(dir.resolve("10-a.conflist"));
      Files.delete(dir);
      await("a wake-up for the directory's deletion")
          .atMost(Duration.ofSeconds(10))
          .until(() -> wakes.size() > 1);
      assertThat(wakes.get(wakes.size() - 1)).contains(ConfDirWatch.UNKNOWN);
    }
  }

  private static Set<String> named(List<Set<String>> wakes) {
    Set<String> all = new TreeSet<>();
    wakes.forEach(all::addAll);
    return all;
  }

  @Test
  void aDirectoryDeletedAndMadeAgainIsWatchedAgainFromTheNextPass() throws Exception {
    Path dir = Files.createDirectory(parent.resolve("net.d"));
    AtomicInteger wakes = new AtomicInteger();
    try (ConfDirWatch watch = new ConfDirWatch(dir, names -> wakes.incrementAndGet())) {
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
