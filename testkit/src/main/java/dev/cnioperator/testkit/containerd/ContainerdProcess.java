package dev.cnioperator.testkit.containerd;

import dev.cnioperator.testkit.Await;
import dev.cnioperator.testkit.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The containerd daemon of one fixture: started on its config file until it answers on its socket,
 * stopped with SIGTERM (SIGKILL when it does not go), or killed outright; its output appended to
 * one log file across restarts.
 */
final class ContainerdProcess {
  private static final Logger log = LoggerFactory.getLogger(ContainerdProcess.class);

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final Path configFile;
  private final Path socket;
  private final Path logFile;
  private final List<String> launcher;
  private final Path binDir;
  private volatile Process process;

  /**
   * {@code launcher} is put before the command (e.g. an {@code nsenter} into a node); {@code
   * binDir} holds the release's containerd, shim and ctr.
   */
  ContainerdProcess(
      List<String> launcher, Path binDir, Path configFile, Path socket, Path logFile) {
    this.launcher = List.copyOf(launcher);
    this.binDir = binDir;
    this.configFile = configFile;
    this.socket = socket;
    this.logFile = logFile;
  }

  boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** Starts containerd and returns once {@code ctr version} gets an answer on the socket. */
  void start() {
    long startNanos = System.nanoTime();
    List<String> command = new ArrayList<>(launcher);
    command.addAll(
        List.of(binDir.resolve("containerd").toString(), "--config", configFile.toString()));
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    // containerd looks its shim up on PATH first: the release's own, not Debian's in /usr/bin.
    pb.environment().merge("PATH", binDir.toString(), (path, dir) -> dir + ":" + path);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start containerd", e);
    }
    process = p;
    Await.serving(
        "containerd",
        p,
        logFile,
        () ->
            Files.exists(socket)
                && Commands.run(
                        binDir.resolve("ctr").toString(), "-a", socket.toString(), "version")
                    .ok(),
        READY_TIMEOUT);
    log.info(
        "event=containerd-started pid={} socket={} ms={}",
        p.pid(),
        socket,
        (System.nanoTime() - startNanos) / 1_000_000);
  }

  /** SIGTERM, then SIGKILL when containerd has not exited within the stop timeout. */
  void stop() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    if (!waitFor(p, STOP_TIMEOUT)) {
      p.destroyForcibly();
      waitFor(p, STOP_TIMEOUT);
    }
  }

  /** SIGKILL, as a crash: nothing is torn down. */
  void kill() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      waitFor(p, STOP_TIMEOUT);
      log.info("event=containerd-killed signal=SIGKILL pid={}", p.pid());
    }
  }

  private static boolean waitFor(Process p, Duration timeout) {
    try {
      return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
