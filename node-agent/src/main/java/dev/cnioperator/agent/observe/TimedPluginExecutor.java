package dev.cnioperator.agent.observe;

import dev.cnioperator.cni.exec.ExecResult;
import dev.cnioperator.cni.exec.PluginExecutor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * A {@link PluginExecutor} that records each plugin run's latency in the agent's metrics and tells
 * its liveness when a run begins and ends (a run that outlives its kill makes the agent stuck).
 */
public final class TimedPluginExecutor implements PluginExecutor {
  private final PluginExecutor delegate;
  private final AgentMetrics metrics;
  private final AgentLiveness liveness;

  public TimedPluginExecutor(
      PluginExecutor delegate, AgentMetrics metrics, AgentLiveness liveness) {
    this.delegate = delegate;
    this.metrics = metrics;
    this.liveness = liveness;
  }

  @Override
  public ExecResult execute(Path plugin, Map<String, String> env, byte[] stdin, Duration timeout) {
    String name = plugin.getFileName().toString();
    String verb = env.getOrDefault("CNI_COMMAND", "UNKNOWN");
    long run = liveness.pluginRunBegan(name, verb, timeout);
    long started = System.nanoTime();
    try {
      return delegate.execute(plugin, env, stdin, timeout);
    } finally {
      liveness.pluginRunEnded(run);
      metrics.pluginExec(name, verb, Duration.ofNanos(System.nanoTime() - started));
    }
  }
}
