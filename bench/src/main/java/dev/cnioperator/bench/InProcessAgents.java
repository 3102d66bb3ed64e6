package dev.cnioperator.bench;

import dev.cnioperator.agent.AgentProgram;
import dev.cnioperator.agent.AgentSettings;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Many simulated nodes' agents in this JVM: each a complete {@link AgentProgram} (its own
 * Kubernetes client with a token of the agent ServiceAccount bound to a Pod on its node, its own
 * sandbox host root, its own health server), exactly as {@code run} wires it. Sharing the JVM only
 * saves the per-process JVM cost, which one agent per node would pay once.
 */
final class InProcessAgents implements AutoCloseable {
  private final List<String> nodes = new ArrayList<>();
  private final List<HostPaths> paths = new ArrayList<>();
  private final List<AgentProgram> programs = new ArrayList<>();

  /** Creates {@code count} Nodes named {@code <group>-<i>} and starts an agent for each. */
  static InProcessAgents start(BenchCluster cluster, String group, int count) throws Exception {
    InProcessAgents agents = new InProcessAgents();
    try {
      agents.growTo(cluster, group, count);
    } catch (Exception e) {
      agents.close();
      throw e;
    }
    return agents;
  }

  /**
   * Creates Nodes {@code <group>-<size>} .. {@code <group>-<count - 1>} and starts an agent for
   * each, as nodes join a cluster; the caller closes these agents too on a failure.
   */
  void growTo(BenchCluster cluster, String group, int count) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<AgentProgram>> started = new ArrayList<>();
      for (int i = nodes.size(); i < count; i++) {
        String node = group + "-" + i;
        Path root = cluster.workDir().resolve("nodes/" + node);
        HostPaths hp = HostPaths.under(root, ToolPaths.pluginDir());
        nodes.add(node);
        paths.add(hp);
        started.add(pool.submit(() -> startOne(cluster, group, node, root, hp)));
      }
      // Every agent that started is kept, so that close() stops it even when another failed.
      ExecutionException failed = null;
      for (Future<AgentProgram> f : started) {
        try {
          programs.add(f.get());
        } catch (ExecutionException e) {
          failed = failed == null ? e : failed;
        }
      }
      if (failed != null) {
        throw failed;
      }
    } finally {
      pool.shutdown();
    }
  }

  private static AgentProgram startOne(
      BenchCluster cluster, String group, String node, Path root, HostPaths hp) throws IOException {
    cluster.createNode(node, group);
    Path kubeconfig = cluster.agentKubeconfig(node, root);
    return AgentProgram.start(
        new AgentSettings(
            node,
            kubeconfig,
            hp,
            null,
            new InetSocketAddress("127.0.0.1", 0),
            Duration.ofSeconds(60),
            Duration.ofSeconds(30),
            null,
            null));
  }

  List<String> nodes() {
    return nodes;
  }

  /** The conf dir of every node, in the order of {@link #nodes()}. */
  List<Path> confDirs() {
    return paths.stream().map(HostPaths::confDir).toList();
  }

  @Override
  public void close() {
    programs.parallelStream().forEach(AgentProgram::close);
  }
}
