package dev.cnioperator.agent.observe;

import dev.cnioperator.cni.exec.ExecResult;
import dev.cnioperator.cni.exec.PluginExecutor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** A {@link PluginExecutor} that records each plugin run's latency in the agent's metrics. */
public final class TimedPluginExecutor implements PluginExecutor {
  private final PluginExecutor delegate;
  private final AgentMetrics metrics;

  public TimedPluginExecutor(PluginExecutor delegate, AgentMetrics metrics) {
    this.delegate = delegate;
    this.metrics = metrics;
  }

  @Override
  public ExecResult execute(Path plugin, Map<String, String> env, byte[] stdin, Duration timeout) {
    long started = System.nanoTime();
    try {
      return delegate.execute(plugin, env, stdin, timeout);
    } finally {
      metrics.pluginExec(
          plugin.getFileName().toString(),
          env.getOrDefault("CNI_COMMAND", "UNKNOWN"),
          Duration.ofNanos(System.nanoTime() - started));
    }
  }
}
