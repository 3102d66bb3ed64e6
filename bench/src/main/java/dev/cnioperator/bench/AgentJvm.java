package dev.cnioperator.bench;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The node agent's jar started as its own JVM with chosen JVM options, as the DaemonSet starts it
 * with the chart's {@code JAVA_TOOL_OPTIONS}. (The e2e harness's ProductProcess fixes its JVM
 * options; a footprint benchmark has to vary them.)
 */
final class AgentJvm implements AutoCloseable {
  private final Process process;
  private final long startNanos;

  private AgentJvm(Process process, long startNanos) {
    this.process = process;
    this.startNanos = startNanos;
  }

  /**
   * {@code kubeconfig} null: the agent configures its client in-cluster, from {@code env} (a pod's
   * KUBERNETES_SERVICE_HOST and _PORT) and the ServiceAccount files.
   */
  static AgentJvm start(
      List<String> java,
      Path jar,
      List<String> jvmOptions,
      String nodeName,
      Path kubeconfig,
      Map<String, String> env,
      HostPaths paths,
      Path log) {
    List<String> cmd = java(java, jvmOptions);
    cmd.addAll(List.of("-jar", jar.toString(), "run", "--node-name", nodeName));
    if (kubeconfig != null) {
      cmd.addAll(List.of("--kubeconfig", kubeconfig.toString()));
    }
    cmd.addAll(List.of("--listen", "127.0.0.1:0"));
    for (Map.Entry<String, String> flag : paths.asFlags().entrySet()) {
      cmd.add(flag.getKey());
      cmd.add(flag.getValue());
    }
    return spawn(cmd, env, log);
  }

  /** {@link StartFloor} from the agent's jar with the same JVM options. */
  static AgentJvm startFloor(
      List<String> java,
      Path jar,
      List<String> jvmOptions,
      String nodeName,
      Path kubeconfig,
      Map<String, String> env,
      Path confDir,
      Path log) {
    List<String> cmd = java(java, jvmOptions);
    cmd.addAll(
        List.of(
            "-cp",
            jar + ":" + benchClasses(),
            StartFloor.class.getName(),
            kubeconfig == null ? StartFloor.IN_CLUSTER : kubeconfig.toString(),
            nodeName,
            confDir.toString()));
    return spawn(cmd, env, log);
  }

  /** Where this benchmark's own classes were loaded from. */
  private static String benchClasses() {
    try {
      return Path.of(StartFloor.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A private copy of the agent's jar in {@code dir}: a class data archive only maps for the very
   * jar it was made from, and other builds may replace node-agent/target in the meantime.
   */
  static Path copyJar(Path dir) {
    try {
      Files.createDirectories(dir);
      return Files.copy(
          ToolPaths.repoRoot().resolve("node-agent/target/cni-node-agent.jar"),
          dir.resolve("cni-node-agent.jar"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The java launcher running this benchmark. */
  static List<String> thisJava() {
    return List.of(ProcessHandle.current().info().command().orElse("java"));
  }

  /** {@code java}: the command that starts a JVM (a launcher, or chroot and one). */
  private static List<String> java(List<String> java, List<String> jvmOptions) {
    List<String> cmd = new ArrayList<>(java);
    cmd.addAll(jvmOptions);
    return cmd;
  }

  private static AgentJvm spawn(List<String> cmd, Map<String, String> env, Path log) {
    long t0 = System.nanoTime();
    return new AgentJvm(NodeDaemon.spawn(cmd, env, log), t0);
  }

  /** When {@code start} began to spawn the process, in System.nanoTime() terms. */
  long startNanos() {
    return startNanos;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Resident set size in MiB, from the kernel's VmRSS of the process. */
  double rssMib() {
    return statusKib("VmRSS:") / 1024.0;
  }

  /** The anonymous part of the resident set (heap, metaspace, stacks, malloc), in MiB. */
  double rssAnonMib() {
    return statusKib("RssAnon:") / 1024.0;
  }

  /** {@code jcmd <pid> VM.native_memory summary} (needs -XX:NativeMemoryTracking=summary). */
  String nativeMemorySummary() {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    return dev.cnioperator.testkit.Commands.run(
            jcmd.toString(), Long.toString(process.pid()), "VM.native_memory", "summary")
        .stdout();
  }

  /** Threads of the process. */
  long threads() {
    return statusKib("Threads:");
  }

  private long statusKib(String field) {
    return ProcAccounting.status(process.pid(), field);
  }

  /** SIGTERM (the agent's shutdown hook runs, so a class archive is dumped), then SIGKILL. */
  @Override
  public void close() {
    NodeDaemon.stop(process, 20);
  }
}
