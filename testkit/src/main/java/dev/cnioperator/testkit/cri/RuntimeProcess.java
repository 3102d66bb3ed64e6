package dev.cnioperator.testkit.cri;

import dev.cnioperator.testkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon of one test runtime (containerd, CRI-O): started on its command until it serves,
 * stopped with SIGTERM (SIGKILL when it does not go), or killed outright; its output appended to
 * one log file across restarts.
 */
public final class RuntimeProcess {
  private static final Logger log = LoggerFactory.getLogger(RuntimeProcess.class);

  private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

  /** How long a stop waits for the daemon before it kills it. */
  public static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final List<String> command;
  private final Map<String, String> environment;
  private final Path logFile;
  private final BooleanSupplier serving;
  private volatile Process process;

  /**
   * {@code command} starts the daemon (after a launcher such as an {@code nsenter} into a node),
   * with {@code environment} added to the JVM's; {@code serving} says when it answers.
   */
  public RuntimeProcess(
      String name,
      List<String> command,
      Map<String, String> environment,
      Path logFile,
      BooleanSupplier serving) {
    this.name = name;
    this.command = List.copyOf(command);
    this.environment = Map.copyOf(environment);
    this.logFile = logFile;
    this.serving = serving;
  }

  public boolean isRunning() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** The daemon's pid while it runs (the command execs it: {@code nsenter} without a pid ns). */
  public long pid() {
    return process.pid();
  }

  /** Starts the daemon and returns once it serves. */
  public void start() {
    long startNanos = System.nanoTime();
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
    pb.environment().putAll(environment);
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
    process = p;
    Await.serving(name, p, logFile, serving, READY_TIMEOUT);
    log.info(
        "event=runtime-started runtime=\"{}\" pid={} ms={}",
        name,
        p.pid(),
        (System.nanoTime() - startNanos) / 1_000_000);
  }

  /** SIGTERM, then SIGKILL when the daemon has not exited within the stop timeout. */
  public void stop() {
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
  public void kill() {
    Process p = process;
    if (p != null) {
      p.destroyForcibly();
      waitFor(p, STOP_TIMEOUT);
      log.info("event=runtime-killed runtime=\"{}\" signal=SIGKILL pid={}", name, p.pid());
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
