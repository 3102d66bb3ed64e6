package dev.cnioperator.agent.owner;

import dev.cnioperator.agent.check.ReportedFailures;
import dev.cnioperator.agent.cleanup.CleanupHistory;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.observe.NetworkMetrics;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * Everything the agent keeps of one network on its node: when its proof, CHECK and cleanup are next
 * due, whether a pass over it is under way, the CHECK failures already announced, the cleanup's
 * history, what the passes last found and the network's metric series. Created when the network
 * (its name and uid) arrives, dropped whole when it goes (its series removed): a network created
 * again under the same name starts afresh.
 */
final class NetworkOwner {
  final String name;
  final String uid;

  /** Claimed by the ticker for one pass at a time. */
  final AtomicBoolean running = new AtomicBoolean();

  final ReportedFailures reported = new ReportedFailures();
  final CleanupHistory cleanup = new CleanupHistory();
  final NetworkMetrics metrics;
  private final AtomicReference<NetworkHealth> health;

  /** Read and written on the ticker's thread only. */
  Instant nextCheck = Instant.MIN;

  Instant nextCleanup = Instant.MIN;

  /** When this agent last probed the network, null if not since it started. */
  volatile Instant lastProbe;

  /** Whatever a probe killed with an earlier agent left has been swept. */
  volatile boolean swept;

  NetworkOwner(ManagedNetwork network, NetworkHealth health, NetworkMetrics metrics) {
    this.name = network.name();
    this.uid = network.uid();
    this.health = new AtomicReference<>(health);
    this.metrics = metrics;
  }

  /** Whether {@code network} is the one this owner was made for (same name, same uid). */
  boolean owns(ManagedNetwork network) {
    return name.equals(network.name()) && Objects.equals(uid, network.uid());
  }

  NetworkHealth health() {
    return health.get();
  }

  void update(UnaryOperator<NetworkHealth> change) {
    health.updateAndGet(change);
  }
}
