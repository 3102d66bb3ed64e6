package dev.cnioperator.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One of the product's programs (operator or node agent) running as a real JVM process. */
public final class ProductProcess implements AutoCloseable {
  private final String name;
  private final List<String> command;
  private final Path log;
  private final ProcessOptions options;
  private Process process;

  private ProductProcess(String name, List<String> command, Path log, ProcessOptions options) {
    this.name = name;
    this.command = List.copyOf(command);
    this.log = log;
    this.options = options;
  }

  /** Starts {@code java -jar jar args...} with stdout and stderr appended to {@code log}. */
  public static ProductProcess start(String name, Path jar, List<String> args, Path log) {
    return start(name, jar, args, log, ProcessOptions.DEFAULT);
  }

  /**
   * As {@link #start(String, Path, List, Path)}, with {@code options}' JVM options, flags,
   * environment, working directory and wrapping command ({@code apiServer} is the caller's job).
   */
  public static ProductProcess start(
      String name, Path jar, List<String> args, Path log, ProcessOptions options) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build it first (./mvnw -DskipTests package)");
    }
    List<String> cmd = new ArrayList<>(options.runUnder());
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(List.of("-XX:+UseSerialGC", "-Xss512k", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(options.jvmOptions());
    cmd.addAll(List.of("-jar", jar.toString()));
    cmd.addAll(args);
    cmd.addAll(options.args());
    ProductProcess p = new ProductProcess(name, cmd, log, options);
    p.start();
    return p;
  }

  /** Starts the same command again (after {@link #kill()} or {@link #stop()}). */
  public synchronized void start() {
    try {
      Files.createDirectories(log.getParent());
      ProcessBuilder builder =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().putAll(options.environment());
      if (options.workingDir() != null) {
        builder.directory(options.workingDir().toFile());
      }
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  public String name() {
    return name;
  }

  public Path log() {
    return log;
  }

  public synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process.pid();
  }

  /** What the process has printed so far. */
  public String output() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL, as a crash or an OOM kill would. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      waitQuietly(10);
    }
  }

  /** SIGTERM, then SIGKILL after ten seconds. */
  public synchronized void stop() {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!waitQuietly(10)) {
        process.destroyForcibly();
        waitQuietly(10);
      }
    }
  }

  @Override
  public void close() {
    stop();
  }

  private boolean waitQuietly(int seconds) {
    try {
      return process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public String toString() {
    return name + (isAlive() ? " (pid " + pid() + ")" : " (stopped)");
  }
}
