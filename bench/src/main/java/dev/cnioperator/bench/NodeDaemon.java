package dev.cnioperator.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One node daemon other than the agent, started as a process of its own with its output in a log;
 * its pid is the daemon's (the wrappers in front of it, {@code unshare} and {@code ip netns exec},
 * exec it in their place).
 */
final class NodeDaemon implements AutoCloseable {
  private final String name;
  private final Process process;
  private final Path log;

  private NodeDaemon(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  static NodeDaemon start(String name, List<String> command, Map<String, String> env, Path log) {
    return new NodeDaemon(name, spawn(command, env, log), log);
  }

  /**
   * Starts {@code command} with {@code env} added, its output and errors appended to {@code log}.
   */
  static Process spawn(List<String> command, Map<String, String> env, Path log) {
    try {
      Files.createDirectories(log.getParent());
      ProcessBuilder pb =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().putAll(env);
      return pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String name() {
    return name;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Why it is not running: its exit status and the last lines of its log. */
  String whyDead() {
    String tail;
    try {
      List<String> lines = Files.readAllLines(log);
      tail = String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    } catch (IOException e) {
      tail = "(no log: " + e.getMessage() + ")";
    }
    return name + " exited with " + process.exitValue() + ": " + tail;
  }

  /** SIGTERM, then SIGKILL after 10 s. */
  @Override
  public void close() {
    stop(process, 10);
  }

  /** SIGTERM, then SIGKILL if it has not exited after {@code seconds}. */
  static void stop(Process process, int seconds) {
    process.destroy();
    try {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
