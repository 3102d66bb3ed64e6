package dev.cnioperator.operator;

import dev.cnioperator.operator.liveness.LoopLiveness;
import dev.cnioperator.operator.taint.PodNetworkTaintSettings;
import java.time.Duration;

/**
 * How one operator process runs.
 *
 * @param namespace where the leader-election Lease lives
 * @param leaderElection whether replicas elect a leader through a Lease (only it reconciles)
 * @param identity this replica's name in the Lease
 * @param finalizerTimeout how long a deleted CniNetwork waits for agents to report removal
 * @param lease the leader-election Lease's timings
 * @param liveness when the reconcile loop counts as stuck (see {@link LoopLiveness})
 * @param podNetworkTaint the pod network taint the operator keeps, null when it keeps none
 */
public record OperatorSettings(
    String namespace,
    boolean leaderElection,
    String identity,
    Duration finalizerTimeout,
    LeaseTimings lease,
    LoopLiveness.Limits liveness,
    PodNetworkTaintSettings podNetworkTaint) {

  /** The name of the Lease replicas compete for. */
  public static final String LEASE_NAME = "cni-operator-leader";

  public OperatorSettings(
      String namespace, boolean leaderElection, String identity, Duration finalizerTimeout) {
    this(
        namespace,
        leaderElection,
        identity,
        finalizerTimeout,
        LeaseTimings.DEFAULT,
        LoopLiveness.Limits.DEFAULT,
        null);
  }

  /** These settings with the pod network taint {@code taint}. */
  public OperatorSettings withPodNetworkTaint(PodNetworkTaintSettings taint) {
    return new OperatorSettings(
        namespace, leaderElection, identity, finalizerTimeout, lease, liveness, taint);
  }

  /**
   * The Lease's timings. The leader renews the Lease every {@code retryPeriod} (3600 / retryPeriod
   * writes an hour, the operator's only writes on a quiet cluster) and gives up leading when it
   * could not renew for {@code renewDeadline}; a standby takes a Lease not renewed for {@code
   * leaseDuration}, looking every {@code retryPeriod}: after the leader dies, a standby leads
   * within {@code leaseDuration + retryPeriod}.
   */
  public record LeaseTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    /** 15 s / 10 s / 2 s: failover within 17 s, 1,800 Lease writes an hour. */
    public static final LeaseTimings DEFAULT =
        new LeaseTimings(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

    public LeaseTimings {
      if (retryPeriod.isNegative() || retryPeriod.isZero()) {
        throw new IllegalArgumentException(
            "--lease-retry-period must be positive, got " + retryPeriod.toSeconds() + "s");
      }
      // fabric8's LeaderElector refuses a renew deadline within 1.2 retry periods.
      if (renewDeadline.toMillis() * 10 <= retryPeriod.toMillis() * 12) {
        throw new IllegalArgumentException(
            "--lease-renew-deadline ("
                + renewDeadline.toMillis()
                + " ms) must be more than 1.2 times --lease-retry-period ("
                + retryPeriod.toMillis()
                + " ms)");
      }
      if (leaseDuration.compareTo(renewDeadline) <= 0) {
        throw new IllegalArgumentException(
            "--lease-duration ("
                + leaseDuration.toMillis()
                + " ms) must be longer than --lease-renew-deadline ("
                + renewDeadline.toMillis()
                + " ms)");
      }
    }
  }
}
