package dev.cnioperator.agent.loop;

import dev.cnioperator.agent.check.ReportedFailures;
import dev.cnioperator.agent.cleanup.CleanupHistory;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.observe.NetworkMetrics;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * Everything the agent keeps of one network on its node: the conflist the node loop last applied,
 * when its proof, CHECK, cleanup and claims' status are next due, the CHECK failures already
 * announced, the cleanup's history, what the runs last found and the network's metric series. Made
 * when the network (its name and uid) arrives, dropped whole when it goes (its series removed): a
 * network created again under the same name starts afresh.
 *
 * <p>Three fields cross threads: the node loop sets {@link #applied} and {@link #askedBy} and reads
 * {@link #health()}. The rest belongs to the network's runs, which the work queue serializes.
 */
final class NetworkLoop {
  final String name;
  final String uid;
  final ReportedFailures reported = new ReportedFailures();
  final CleanupHistory cleanup = new CleanupHistory();
  final NetworkMetrics metrics;
  private final AtomicReference<NetworkHealth> health;

  /** The network as the node loop last applied its conflist; null while it is not applied. */
  volatile ManagedNetwork applied;

  /** The node loop's reconcile that last asked for a run, 0 before any. */
  volatile long askedBy;

  /** The reconcile the last report answered. */
  long answered;

  Instant nextCheck = Instant.MIN;
  Instant nextCleanup = Instant.MIN;
  Instant nextClaims = Instant.MIN;

  /** When this agent last probed the network, null if not since it started. */
  Instant lastProbe;

  /** Whatever a probe killed with an earlier agent left has been removed. */
  boolean leftoversRemoved;

  NetworkLoop(ManagedNetwork network, NetworkHealth health, NetworkMetrics metrics) {
    this.name = network.name();
    this.uid = network.uid();
    this.health = new AtomicReference<>(health);
    this.metrics = metrics;
  }

  /** Whether {@code network} is the one this loop was made for (same name, same uid). */
  boolean isFor(ManagedNetwork network) {
    return name.equals(network.name()) && Objects.equals(uid, network.uid());
  }

  NetworkHealth health() {
    return health.get();
  }

  void update(UnaryOperator<NetworkHealth> change) {
    health.updateAndGet(change);
  }
}
