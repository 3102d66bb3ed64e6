package dev.cnioperator.e2e.chart;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A program of this reactor run in a JVM of its own exactly as a container of the rendered chart
 * would run it: the container's arguments (each passed through {@code rewrite}, so a host path or a
 * port can move into a test's sandbox), its environment with the downward-API values given by the
 * test, and its JAVA_TOOL_OPTIONS. Output goes to a log file that is kept under {@code
 * target/it-logs} when the process is closed.
 */
final class ChartContainerProcess implements AutoCloseable {
  private final Process process;
  private final Path log;

  private ChartContainerProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} (on this test's class path) with the container's arguments, {@code
   * $(VAR)} references expanded from {@code fieldRefs} as the kubelet would, then {@code
   * extraArgs}; the java command runs under {@code launcher} (none, or e.g. nsenter's).
   */
  static ChartContainerProcess start(
      List<String> launcher,
      Class<?> mainClass,
      Container container,
      UnaryOperator<String> rewrite,
      List<String> extraArgs,
      Map<String, String> fieldRefs,
      Path log)
      throws IOException {
    List<String> cmd = new ArrayList<>(launcher);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
    for (String arg : container.getArgs()) {
      cmd.add(rewrite.apply(expand(arg, fieldRefs)));
    }
    cmd.addAll(extraArgs);

    Files.createDirectories(log.getParent());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    for (EnvVar var : container.getEnv()) {
      String value = var.getValue() != null ? var.getValue() : fieldRefs.get(var.getName());
      if (value == null) {
        throw new IllegalArgumentException("no test value for env " + var.getName());
      }
      pb.environment().put(var.getName(), value);
    }
    return new ChartContainerProcess(pb.start(), log);
  }

  boolean alive() {
    return process.isAlive();
  }

  String log() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  @Override
  public void close() throws IOException, InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    if (Files.exists(log)) {
      Path kept = Path.of("target/it-logs").toAbsolutePath().resolve(log.getFileName());
      Files.createDirectories(kept.getParent());
      Files.copy(log, kept, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static String expand(String arg, Map<String, String> values) {
    String out = arg;
    for (Map.Entry<String, String> v : values.entrySet()) {
      out = out.replace("$(" + v.getKey() + ")", v.getValue());
    }
    return out;
  }
}
