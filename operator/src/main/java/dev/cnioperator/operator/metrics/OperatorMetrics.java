package dev.cnioperator.operator.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The operator's own meters, beside JOSDK's: how many networks are ready, degraded or refused (for
 * alerts), and how often it writes (a restart with nothing changed must leave these at zero).
 */
public final class OperatorMetrics {

  /** What the last reconcile of a network concluded. */
  public record NetworkHealth(boolean accepted, boolean ready, boolean degraded) {}

  private final Map<String, NetworkHealth> networks = new ConcurrentHashMap<>();
  private final Counter cniNodeWrites;
  private final Counter statusWrites;

  public OperatorMetrics(MeterRegistry registry) {
    cniNodeWrites =
        Counter.builder("cni.operator.cninode.writes")
            .description("CniNode specs written (server-side apply)")
            .register(registry);
    statusWrites =
        Counter.builder("cni.operator.status.writes")
            .description("CniNetwork statuses written (server-side apply)")
            .register(registry);
    gauge(
        registry,
        "cni.operator.networks.ready",
        "CniNetworks with Ready=True",
        NetworkHealth::ready);
    gauge(
        registry,
        "cni.operator.networks.degraded",
        "CniNetworks with Degraded=True",
        NetworkHealth::degraded);
    gauge(
        registry,
        "cni.operator.networks.refused",
        "CniNetworks with Accepted=False",
        h -> !h.accepted());
    Gauge.builder("cni.operator.networks", networks, Map::size)
        .description("CniNetworks the operator reconciles")
        .register(registry);
  }

  public void networkObserved(String network, NetworkHealth health) {
    networks.put(network, health);
  }

  public void networkGone(String network) {
    networks.remove(network);
  }

  public void cniNodeWritten() {
    cniNodeWrites.increment();
  }

  public void statusWritten() {
    statusWrites.increment();
  }

  private void gauge(
      MeterRegistry registry, String name, String description, Predicate<NetworkHealth> which) {
    Gauge.builder(name, networks, m -> m.values().stream().filter(which).count())
        .description(description)
        .register(registry);
  }
}
