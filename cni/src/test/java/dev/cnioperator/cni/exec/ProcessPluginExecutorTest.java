package dev.cnioperator.cni.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.io.FileOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessPluginExecutorTest {
  @TempDir Path dir;

  @Test
  void hungPluginIsKilledWithItsChildrenAfterTheTimeout() throws Exception {
    Path pidFile = dir.resolve("child.pid");
    Path plugin = new FakePlugins(dir).write("hang", "sleep 300 & echo $! > " + pidFile + "; wait");
    long started = System.nanoTime();
    CniException e =
        catchThrowableOfType(
            CniException.class,
            () ->
                new ProcessPluginExecutor()
                    .execute(plugin, Map.of(), new byte[0], Duration.ofMillis(700)));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    assertThat(e.code()).isEqualTo(CniErrorCode.PLUGIN_TIMEOUT.code());
    assertThat(e.msg()).contains("hang").contains("PT0.7S");
    assertThat(millis).isLessThan(10_000);
    long child = Long.parseLong(Files.readString(pidFile).strip());
    // The orphan sleep must be gone too, or it would hold the plugin's pipes (and a netns) open.
    // (SIGKILL is asynchronous and init reaps the orphan, so give it a moment.)
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> ProcessHandle.of(child).map(h -> !h.isAlive()).orElse(true));
  }

  @Test
  void startIsRetriedWhileTheBinaryIsStillOpenForWriting() throws Exception {
    Path plugin = new FakePlugins(dir).write("busy", "echo ok");
    ExecResult result;
    // An open write handle makes exec fail with ETXTBSY, as while the agent installs a plugin.
    try (FileOutputStream writer = new FileOutputStream(plugin.toFile(), true)) {
      CompletableFuture<Void> closer =
          CompletableFuture.runAsync(
              () -> {
                sleep(500);
                try {
                  writer.close();
                } catch (java.io.IOException ignored) {
                  // the test's try-with-resources reports real failures
                }
              });
      result =
          new ProcessPluginExecutor(1 << 20, 1 << 10, 10, Duration.ofMillis(200))
              .execute(plugin, Map.of(), new byte[0], Duration.ofSeconds(10));
      closer.join();
    }
    assertThat(new String(result.stdout(), StandardCharsets.UTF_8).strip()).isEqualTo("ok");
  }

  @Test
  void busyBinaryFailsClearlyOnceRetriesAreUsedUp() throws Exception {
    Path plugin = new FakePlugins(dir).write("busy", "echo ok");
    try (FileOutputStream writer = new FileOutputStream(plugin.toFile(), true)) {
      CniException e =
          catchThrowableOfType(
              CniException.class,
              () ->
                  new ProcessPluginExecutor(1 << 20, 1 << 10, 2, Duration.ofMillis(10))
                      .execute(plugin, Map.of(), new byte[0], Duration.ofSeconds(5)));
      assertThat(e.code()).isEqualTo(CniErrorCode.IO_FAILURE.code());
      assertThat(e.details()).contains("Text file busy");
    }
  }

  @Test
  void stdoutBeyondTheBoundIsRefused() {
    Path plugin = new FakePlugins(dir).write("flood", "head -c 100000 /dev/zero");
    CniException e =
        catchThrowableOfType(
            CniException.class,
            () ->
                new ProcessPluginExecutor(4096, 1024, 0, Duration.ZERO)
                    .execute(plugin, Map.of(), new byte[0], Duration.ofSeconds(10)));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
