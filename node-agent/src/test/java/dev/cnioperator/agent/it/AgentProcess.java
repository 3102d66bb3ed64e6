package dev.cnioperator.agent.it;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.Prerequisites;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent as a real process ({@code java -jar cni-node-agent.jar run}) for one simulated node.
 */
final class AgentProcess implements AutoCloseable {
  static final Path JAR = Path.of("target/cni-node-agent.jar").toAbsolutePath();

  /** What the DaemonSet runs the agent with: a small heap, one GC thread, C1 only. */
  static final List<String> JVM_FLAGS =
      List.of(
          "-XX:+UseSerialGC",
          "-Xss512k",
          "-XX:TieredStopAtLevel=1",
          "-Xms8m",
          "-Xmx48m",
          "-XX:MinHeapFreeRatio=10",
          "-XX:MaxHeapFreeRatio=30",
          "-XX:ReservedCodeCacheSize=16m");

  private static final Pattern PORT = Pattern.compile("event=agent-listening .*port=(\\d+)");

  private final Process process;
  private final Path log;
  final long startedNanos;

  private AgentProcess(Process process, Path log, long startedNanos) {
    this.process = process;
    this.log = log;
    this.startedNanos = startedNanos;
  }

  /** Starts an agent for {@code node} talking to the API server through {@code kubeconfig}. */
  static AgentProcess start(
      String node, HostPaths paths, Path kubeconfig, Path log, String... extraFlags)
      throws IOException {
    Prerequisites.require(
        Files.isRegularFile(JAR),
        "the agent jar " + JAR,
        "run ./mvnw -pl node-agent package first");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(JVM_FLAGS);
    String extra = System.getProperty("agent.extraJvmArgs", "");
    if (!extra.isBlank()) {
      cmd.addAll(List.of(extra.trim().split("\\s+")));
    }
    cmd.addAll(List.of("-jar", JAR.toString(), "run", "--node-name", node));
    cmd.addAll(List.of("--kubeconfig", kubeconfig.toString()));
    cmd.addAll(List.of("--listen", "127.0.0.1:0"));
    if (!List.of(extraFlags).contains("--resync-seconds")) {
      cmd.addAll(List.of("--resync-seconds", "2"));
    }
    for (Map.Entry<String, String> flag : paths.asFlags().entrySet()) {
      cmd.add(flag.getKey());
      cmd.add(flag.getValue());
    }
    cmd.addAll(List.of(extraFlags));
    Files.createDirectories(log.getParent());
    long started = System.nanoTime();
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    return new AgentProcess(p, log, started);
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  String log() throws IOException {
    return Files.readString(log);
  }

  /** The port of /healthz, /readyz and /metrics, once the agent printed it. */
  int port() throws IOException {
    Matcher m = PORT.matcher(log());
    int port = -1;
    while (m.find()) {
      port = Integer.parseInt(m.group(1));
    }
    return port;
  }

  /** SIGKILL: the agent gets no chance to finish anything. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      kill9();
    }
  }
}
