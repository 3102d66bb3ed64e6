package dev.cnioperator.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion with a time limit, capturing stdout and stderr. */
public final class Commands {
  private Commands() {}

  public static CommandResult run(List<String> command) {
    return run(command, Map.of(), null, Duration.ofMinutes(2));
  }

  public static CommandResult run(String... command) {
    return run(List.of(command));
  }

  /**
   * Runs {@code command} with {@code extraEnv} added to this process's environment and {@code
   * stdin} (may be null) on its standard input; kills it when {@code timeout} passes.
   */
  public static CommandResult run(
      List<String> command, Map<String, String> extraEnv, byte[] stdin, Duration timeout) {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(extraEnv);
    try {
      Process p = pb.start();
      CompletableFuture<byte[]> out = drain(p.getInputStream());
      CompletableFuture<byte[]> err = drain(p.getErrorStream());
      try (var in = p.getOutputStream()) {
        if (stdin != null) {
          in.write(stdin);
        }
      }
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor();
        throw new IllegalStateException(command + " did not finish within " + timeout);
      }
      return new CommandResult(
          p.exitValue(),
          new String(out.join(), StandardCharsets.UTF_8),
          new String(err.join(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("could not run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }

  private static CompletableFuture<byte[]> drain(InputStream stream) {
    return CompletableFuture.supplyAsync(
        () -> {
          try (stream) {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            stream.transferTo(buf);
            return buf.toByteArray();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }
}
