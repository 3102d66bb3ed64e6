package dev.cnioperator.operator.metrics;

import dev.cnioperator.api.v1alpha1.NodeCounts;
import dev.cnioperator.operator.rollout.RolloutOutcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The operator's own meters, beside JOSDK's; the one place that knows their names. Per network
 * (label {@code network}, the CniNetwork's name): what its status says (Accepted, Ready, Degraded,
 * the node counts) and the rollouts that completed, paused or rolled back; a network's series go
 * with it when it is deleted. For the process: whether this replica leads, and how often it writes
 * (a restart with nothing changed must leave the write counters at zero).
 *
 * <p>Only the leader reconciles, so only the leader has per-network series.
 */
public final class OperatorMetrics {

  /** What the last reconcile of a network concluded. */
  public record NetworkHealth(boolean accepted, boolean ready, boolean degraded) {}

  static final String NETWORK = "network";
  static final String ROLLOUTS = "cni.operator.rollouts";

  /** The last status folded for one network, and the meters that show it. */
  private static final class NetworkMeters {
    private final Set<Meter.Id> ids = ConcurrentHashMap.newKeySet();
    private volatile NetworkHealth health = new NetworkHealth(false, false, false);
    private volatile NodeCounts nodes = new NodeCounts();
  }

  private final MeterRegistry registry;
  private final Map<String, NetworkMeters> networks = new ConcurrentHashMap<>();
  private final Counter cniNodeWrites;
  private final Counter statusWrites;

  /**
   * @param leading whether this replica leads, so reconciles (always, without leader election)
   */
  public OperatorMetrics(MeterRegistry registry, BooleanSupplier leading) {
    this.registry = registry;
    cniNodeWrites =
        Counter.builder("cni.operator.cninode.writes")
            .description("CniNode specs written (server-side apply)")
            .register(registry);
    statusWrites =
        Counter.builder("cni.operator.status.writes")
            .description("CniNetwork statuses written (server-side apply)")
            .register(registry);
    Gauge.builder("cni.operator.leader", leading, l -> l.getAsBoolean() ? 1 : 0)
        .description("1 while this replica leads and reconciles, 0 while it stands by")
        .strongReference(true)
        .register(registry);
  }

  /**
   * A reconcile folded {@code network}'s status: its conditions said {@code health}, its
   * status.nodes {@code nodes}.
   */
  public void networkObserved(String network, NetworkHealth health, NodeCounts nodes) {
    NetworkMeters meters = networks.computeIfAbsent(network, this::register);
    meters.health = health;
    meters.nodes = nodes == null ? new NodeCounts() : nodes;
  }

  /**
   * A rollout of {@code network} reached {@code outcome}, as the status this replica wrote says.
   */
  public void rolloutReached(String network, RolloutOutcome outcome) {
    NetworkMeters meters = networks.computeIfAbsent(network, this::register);
    Counter counter =
        Counter.builder(ROLLOUTS)
            .description(
                "Rollouts of a network's revision that reached an outcome: completed (every"
                    + " selected node proved it), paused or rolled_back (a node failed its probe"
                    + " or did not report)")
            .tag(NETWORK, network)
            .tag("outcome", outcome.label())
            .register(registry);
    meters.ids.add(counter.getId());
    counter.increment();
  }

  /** {@code network} is deleted: its series go. */
  public void networkGone(String network) {
    NetworkMeters meters = networks.remove(network);
    if (meters != null) {
      meters.ids.forEach(registry::remove);
    }
  }

  public void cniNodeWritten() {
    cniNodeWrites.increment();
  }

  public void statusWritten() {
    statusWrites.increment();
  }

  private NetworkMeters register(String network) {
    NetworkMeters meters = new NetworkMeters();
    gauge(
        meters,
        network,
        "cni.operator.network.accepted",
        "1 when the network's Accepted condition is True (its spec is valid and clashes with no"
            + " older network), else 0",
        m -> m.health.accepted() ? 1 : 0);
    gauge(
        meters,
        network,
        "cni.operator.network.ready",
        "1 when the network's Ready condition is True (every selected node holds and proved it),"
            + " else 0",
        m -> m.health.ready() ? 1 : 0);
    gauge(
        meters,
        network,
        "cni.operator.network.degraded",
        "1 when the network's Degraded condition is True (a node reports a failed apply or"
            + " probe, or failing attachments), else 0",
        m -> m.health.degraded() ? 1 : 0);
    gauge(
        meters,
        network,
        "cni.operator.network.nodes.selected",
        "Nodes the network is placed on (status.nodes.selected)",
        m -> count(m.nodes.getSelected()));
    gauge(
        meters,
        network,
        "cni.operator.network.nodes.applied",
        "Selected nodes whose agent reports the content they should hold applied"
            + " (status.nodes.applied); selected minus applied have not reported it",
        m -> count(m.nodes.getApplied()));
    gauge(
        meters,
        network,
        "cni.operator.network.nodes.healthy",
        "Applied nodes that proved the content and report no failing attachment"
            + " (status.nodes.healthy)",
        m -> count(m.nodes.getHealthy()));
    return meters;
  }

  private void gauge(
      NetworkMeters meters,
      String network,
      String name,
      String description,
      ToDoubleFunction<NetworkMeters> value) {
    Gauge gauge =
        Gauge.builder(name, meters, value)
            .description(description)
            .tag(NETWORK, network)
            .strongReference(true)
            .register(registry);
    meters.ids.add(gauge.getId());
  }

  private static double count(Integer n) {
    return n == null ? 0 : n;
  }
}
