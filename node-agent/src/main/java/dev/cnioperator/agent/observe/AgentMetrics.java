package dev.cnioperator.agent.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** The agent's Prometheus metrics, named {@code cni_agent_*}; one place that knows their names. */
public final class AgentMetrics {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, AtomicInteger> gauges = new ConcurrentHashMap<>();

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** One node pass ended with {@code outcome}: ok, api_unreachable, cninode_missing or error. */
  public void pass(String outcome) {
    Counter.builder("cni_agent_passes").tag("outcome", outcome).register(registry).increment();
  }

  /** Networks per state after the last pass. */
  public void networks(String state, int count) {
    gauge("cni_agent_networks", "state", state).set(count);
  }

  /** A managed file someone else changed or removed was restored. */
  public void driftRestored(String kind) {
    Counter.builder("cni_agent_drift_restored").tag("kind", kind).register(registry).increment();
  }

  /**
   * One CHECK of one attachment: result is healthy, failing, or unchecked (its netns unknown, so no
   * CHECK ran).
   */
  public void check(String network, String result) {
    Counter.builder("cni_agent_checks")
        .tag("network", network)
        .tag("result", result)
        .register(registry)
        .increment();
  }

  /**
   * One CHECK pass over a network ended: that the CHECK loop is alive shows here (and in /healthz),
   * not in the CniNode status, which changes only with a result.
   */
  public void checkPass(String network) {
    Counter.builder("cni_agent_check_passes")
        .tag("network", network)
        .register(registry)
        .increment();
  }

  /** Attachments of a network found failing in the last CHECK pass. */
  public void failingAttachments(String network, int count) {
    gauge("cni_agent_failing_attachments", "network", network).set(count);
  }

  /** Attachments of a network the last CHECK pass could not check (their netns unknown). */
  public void uncheckedAttachments(String network, int count) {
    gauge("cni_agent_unchecked_attachments", "network", network).set(count);
  }

  /** Stale reservations seen in the last cleanup pass (released or not). */
  public void staleReservations(String network, int count) {
    gauge("cni_agent_ipam_stale_reservations", "network", network).set(count);
  }

  /** Reservations released by the cleanup. */
  public void reclaimed(String network, int count) {
    Counter.builder("cni_agent_ipam_reclaimed")
        .tag("network", network)
        .register(registry)
        .increment(count);
  }

  /** A cleanup pass stopped because it would have deleted too much. */
  public void brake(String network) {
    Counter.builder("cni_agent_ipam_brake").tag("network", network).register(registry).increment();
  }

  /** How long a plugin took for a verb. */
  public void pluginExec(String plugin, String verb, Duration took) {
    Timer.builder("cni_agent_plugin_exec")
        .tag("plugin", plugin)
        .tag("verb", verb)
        .register(registry)
        .record(took);
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    return registry.scrape();
  }

  private AtomicInteger gauge(String name, String tag, String value) {
    return gauges.computeIfAbsent(
        name + "|" + value,
        k -> {
          AtomicInteger holder = new AtomicInteger();
          registry.gauge(name, io.micrometer.core.instrument.Tags.of(tag, value), holder);
          return holder;
        });
  }
}
