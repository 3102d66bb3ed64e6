package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.Prerequisites;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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

  /**
   * What these tests run the agent with: a small heap, one GC thread, C1 only; close to the chart's
   * {@code agent.javaToolOptions}, which {@code AgentFootprintIT} runs it with.
   */
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
  private static final Pattern OK_PASSES =
      Pattern.compile("cni_agent_node_passes_total\\{[^}]*outcome=\"ok\"[^}]*\\}\\s+(\\S+)");

  /** Long enough for a few passes of any loop the tests run (the slowest comes every 15 s). */
  private static final Duration PASSES = Duration.ofSeconds(90);

  private final Process process;
  private final Path log;

  private AgentProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts an agent for {@code node} talking to the API server through {@code kubeconfig}. */
  static AgentProcess start(
      String node, HostPaths paths, Path kubeconfig, Path log, String... extraFlags)
      throws IOException {
    return start(node, paths, kubeconfig, log, JVM_FLAGS, Map.of(), extraFlags);
  }

  /**
   * As {@link #start(String, HostPaths, Path, Path, String...)}, the JVM started with {@code
   * jvmFlags} in place of {@link #JVM_FLAGS} and {@code env} added to its environment (say, {@code
   * JAVA_TOOL_OPTIONS}, as the DaemonSet passes its JVM options).
   */
  static AgentProcess start(
      String node,
      HostPaths paths,
      Path kubeconfig,
      Path log,
      List<String> jvmFlags,
      Map<String, String> env,
      String... extraFlags)
      throws IOException {
    Prerequisites.require(
        Files.isRegularFile(JAR),
        "the agent jar " + JAR,
        "run ./mvnw -pl node-agent package first");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmFlags);
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
    ProcessBuilder builder =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(env);
    Process p = builder.start();
    return new AgentProcess(p, log);
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  private static final Pattern CONFLIST_WRITTEN =
      Pattern.compile("event=conflist-written .*reason=(\\w+)");

  String log() throws IOException {
    return Files.readString(log);
  }

  /** The reason of each conflist the agent wrote so far, in order (CREATE, UPDATE, RESTORE_...). */
  List<String> conflistWrites() throws IOException {
    List<String> reasons = new ArrayList<>();
    Matcher m = CONFLIST_WRITTEN.matcher(log());
    while (m.find()) {
      reasons.add(m.group(1));
    }
    return reasons;
  }

  /**
   * The log's complete lines containing {@code event} (e.g. {@link #cleanupPass}), a line still
   * being written left out.
   */
  List<String> logged(String event) throws IOException {
    String log = log();
    return log.substring(0, log.lastIndexOf('\n') + 1)
        .lines()
        .filter(l -> l.contains(event))
        .toList();
  }

  /**
   * Waits until {@code n} passes that began after this call have logged {@code event}, and returns
   * their lines: proof that a loop kept running through a window in which nothing else may happen.
   * A network's passes never overlap, so of the new lines only the first can come from a pass
   * already under way when the wait began; that one is waited for and left out.
   */
  List<String> awaitLogged(String event, int n) throws IOException {
    int before = logged(event).size();
    List<String> lines =
        await("%d more lines with %s".formatted(n + 1, event))
            .atMost(PASSES)
            .until(() -> logged(event), l -> l.size() >= before + n + 1);
    return lines.subList(before + 1, lines.size());
  }

  /** What a network's CHECK pass logs at its end. */
  static String checkPass(String network) {
    return "event=check-pass network=" + network + " ";
  }

  /** What a network's cleanup pass logs at its end, once it has read its source of truth. */
  static String cleanupPass(String network) {
    return "event=cleanup-pass network=" + network + " ";
  }

  /** Node passes that ended well so far (cni_agent_node_passes_total{outcome="ok"}). */
  double okPasses() throws Exception {
    Matcher m = OK_PASSES.matcher(scrape());
    assertThat(m.find()).as("cni_agent_node_passes_total{outcome=ok} in /metrics").isTrue();
    return Double.parseDouble(m.group(1));
  }

  /** What /metrics answers now: the Prometheus text exposition. */
  String scrape() throws Exception {
    return get("/metrics").body();
  }

  /** GET of one of the agent's endpoints ({@code /healthz}, {@code /readyz}, {@code /metrics}). */
  HttpResponse<String> get(String path) throws Exception {
    assertThat(port()).as("the agent's port, from its log").isPositive();
    String url = "http://127.0.0.1:" + port() + path;
    return HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create(url)).build(), BodyHandlers.ofString());
  }

  /**
   * Waits until {@code n} more node passes ended well than now. Scheduled passes (every 2 s in
   * these tests) start with a fresh read of the CniNode, so of two, the second read the spec as it
   * was when the wait began, or newer.
   */
  void awaitOkPasses(int n) throws Exception {
    await().atMost(PASSES).ignoreExceptions().until(() -> port() > 0);
    double before = okPasses();
    await("%d more node passes".formatted(n))
        .atMost(PASSES)
        .ignoreExceptions()
        .until(() -> okPasses() >= before + n);
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
