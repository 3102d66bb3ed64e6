package dev.cnioperator.cni.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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
    Path runs = dir.resolve("runs");
    Path plugin = new FakePlugins(dir).write("busy", "echo run >> " + runs + "; echo ok");
    Thread caller = Thread.currentThread();
    ExecResult result;
    // An open write handle makes exec fail with ETXTBSY, as while the agent installs a plugin.
    try (FileOutputStream writer = new FileOutputStream(plugin.toFile(), true)) {
      assertThat(
              catchThrowableOfType(
                  IOException.class, () -> new ProcessBuilder(plugin.toString()).start()))
          .as("a start while the binary is open for writing (the kernel's ETXTBSY)")
          .hasMessageContaining("Text file busy");
      // The writer lets go only once the executor has been seen starting the plugin and then asleep
      // before its next attempt: the start that succeeds can only be a retry.
      AtomicBoolean attempted = new AtomicBoolean();
      CompletableFuture<Void> closer =
          CompletableFuture.runAsync(
              () -> {
                try {
                  await("the executor asleep in its start after an attempt that failed (ETXTBSY)")
                      .atMost(Duration.ofSeconds(20))
                      .pollInterval(Duration.ofMillis(1))
                      .until(
                          () -> {
                            Phase phase = Phase.of(caller);
                            attempted.compareAndSet(false, phase == Phase.STARTING);
                            return attempted.get() && phase == Phase.WAITING_TO_RETRY;
                          });
                } finally {
                  try {
                    writer.close();
                  } catch (IOException ignored) {
                    // the test's try-with-resources reports real failures
                  }
                }
              });
      result =
          new ProcessPluginExecutor(1 << 20, 1 << 10, 300, Duration.ofMillis(100))
              .execute(plugin, Map.of(), new byte[0], Duration.ofSeconds(60));
      closer.join();
    }
    assertThat(new String(result.stdout(), StandardCharsets.UTF_8).strip()).isEqualTo("ok");
    assertThat(Files.readAllLines(runs)).as("times the plugin ran").hasSize(1);
  }

  /** Where a thread running {@link ProcessPluginExecutor#execute} is in the plugin's start. */
  private enum Phase {
    /** Starting the process: an attempt. */
    STARTING,
    /** Asleep in the executor's start, which it is only between an attempt and the next. */
    WAITING_TO_RETRY,
    OTHER;

    static Phase of(Thread thread) {
      List<StackTraceElement> stack = List.of(thread.getStackTrace());
      boolean inStart =
          stack.stream()
              .anyMatch(
                  f ->
                      f.getClassName().equals(ProcessPluginExecutor.class.getName())
                          && f.getMethodName().equals("start"));
      if (!inStart) {
        return OTHER;
      }
      if (stack.stream()
          .anyMatch(
              f ->
                  f.getClassName().equals(ProcessBuilder.class.getName())
                      && f.getMethodName().equals("start"))) {
        return STARTING;
      }
      boolean asleep =
          stack.get(0).getClassName().equals(Thread.class.getName())
              && stack.get(0).getMethodName().startsWith("sleep");
      return asleep ? WAITING_TO_RETRY : OTHER;
    }
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

  // With a root: each plugin is chrooted into it. "/" keeps this machine's file system, so the
  // tests show what the executor makes of chroot's own failures against the plugin's.

  private static ExecResult inRoot(Path root, Path plugin, int busyRetries) {
    return new ProcessPluginExecutor(1 << 20, 1 << 10, busyRetries, Duration.ofMillis(10), root)
        .execute(plugin, Map.of("CNI_COMMAND", "VERSION"), new byte[0], Duration.ofSeconds(10));
  }

  @Test
  void inARootThePluginRunsWithItsEnvironmentAndItsOwnExitCode() {
    Path plugin =
        new FakePlugins(dir).write("exits", "echo \"$CNI_COMMAND\"; echo own >&2; exit 127");
    ExecResult result = inRoot(Path.of("/"), plugin, 0);
    assertThat(result.exitCode())
        .as("the plugin's exit, even one that chroot also uses")
        .isEqualTo(127);
    assertThat(new String(result.stdout(), StandardCharsets.UTF_8).strip()).isEqualTo("VERSION");
  }

  @Test
  void inARootAScriptWhoseInterpreterIsMissingThereCannotStart() throws IOException {
    Path plugin = dir.resolve("script");
    Files.writeString(plugin, "#!/nonexistent/python3\nprint('never')\n");
    plugin.toFile().setExecutable(true);
    CniException e =
        catchThrowableOfType(CniException.class, () -> inRoot(Path.of("/"), plugin, 0));
    assertThat(e.code()).isEqualTo(CniErrorCode.IO_FAILURE.code());
    assertThat(e.msg()).contains("cannot start plugin " + plugin + " in /");
    assertThat(e.details()).contains("failed to run command").contains("No such file or directory");
  }

  @Test
  void inARootAMissingRootIsNamed() {
    Path plugin = new FakePlugins(dir).write("ok", "echo ok");
    CniException e =
        catchThrowableOfType(
            CniException.class, () -> inRoot(dir.resolve("no-such-root"), plugin, 0));
    assertThat(e.code()).isEqualTo(CniErrorCode.IO_FAILURE.code());
    assertThat(e.details()).contains("cannot change root directory").contains("no-such-root");
  }

  @Test
  void inARootABusyBinaryIsRetriedAndThenFailsClearly() throws Exception {
    Path runs = dir.resolve("runs");
    Path plugin = new FakePlugins(dir).write("busy", "echo run >> " + runs + "; echo ok");
    try (FileOutputStream writer = new FileOutputStream(plugin.toFile(), true)) {
      long started = System.nanoTime();
      CniException e =
          catchThrowableOfType(CniException.class, () -> inRoot(Path.of("/"), plugin, 3));
      assertThat(e.code()).isEqualTo(CniErrorCode.IO_FAILURE.code());
      assertThat(e.details()).contains("Text file busy");
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
          .as("three retries 10 ms apart")
          .isGreaterThanOrEqualTo(30);
    }
    assertThat(runs).as("the plugin never ran").doesNotExist();
    ExecResult result = inRoot(Path.of("/"), plugin, 0);
    assertThat(new String(result.stdout(), StandardCharsets.UTF_8).strip()).isEqualTo("ok");
  }
}
