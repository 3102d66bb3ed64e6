package dev.cnioperator.operator.liveness;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this replica's reconcile loop is stuck, and why: what {@code /healthz} answers, so that
 * the kubelet restarts an operator that no longer works and only then.
 *
 * <p>The loop is stuck when this replica leads (or runs without leader election) and either
 *
 * <ol>
 *   <li>one reconcile or cleanup has been running for longer than {@link Limits#reconcile()}: every
 *       request it makes to the API server is bounded by the client's timeouts, so a reconcile that
 *       has not returned by then waits on something that will not come (a deadlock, a request
 *       without a timeout) and holds its resource (and one of JOSDK's threads) until the process
 *       ends; or
 *   <li>with leader election, an event source (informer) has been unhealthy (stopped, not synced or
 *       not watching) at every look for longer than {@link Limits#unhealthySources()}, while the
 *       Lease renewals that keep this replica leading prove that the API server answers. The
 *       informers reconnect by themselves within seconds when they can (fabric8's back-off stops
 *       growing at 32 s), so one that has not by then will not, and the reconciles it feeds decide
 *       nothing (they wait for serving informers); a fresh process lists and watches anew.
 * </ol>
 *
 * <p>A standby is live: it reconciles nothing that could stick, and its informers may wait on an
 * API server it cannot reach, which restarting it would not fix. An unreachable API server makes no
 * replica restart in a loop through this check: the leader cannot renew its Lease, so it stops
 * leading within the renew deadline and exits on its own, as it must for no two replicas to
 * reconcile at once, and comes back as a standby, live; without leader election rule 2 does not
 * apply (no Lease tells an outage from a stuck informer) and rule 1 only when a single reconcile
 * outlasts its bound.
 */
public final class LoopLiveness {
  private static final Logger LOG = LoggerFactory.getLogger(LoopLiveness.class);

  /**
   * @param reconcile how long one reconcile or cleanup may run
   * @param unhealthySources how long the event sources of a leader may stay unhealthy
   */
  public record Limits(Duration reconcile, Duration unhealthySources) {
    /**
     * 5 min: a reconcile makes a handful of requests (far more only for a Multus network chosen in
     * many namespaces), each answered within the client's 10 s request timeout while the API server
     * renews the Lease; they take well under a second each. 2 min: four times fabric8's longest
     * reconnect back-off.
     */
    public static final Limits DEFAULT = new Limits(Duration.ofMinutes(5), Duration.ofMinutes(2));

    public Limits {
      if (reconcile.isNegative() || reconcile.isZero()) {
        throw new IllegalArgumentException(
            "--stuck-reconcile-after must be positive, got " + reconcile.toSeconds() + "s");
      }
      if (unhealthySources.isNegative() || unhealthySources.isZero()) {
        throw new IllegalArgumentException(
            "the event sources' grace must be positive, got " + unhealthySources.toSeconds() + "s");
      }
    }
  }

  /** What the check reads of the running operator. */
  public interface Loop {
    /** Whether this replica leads, so reconciles (always, without leader election). */
    boolean leading();

    /** The reconcile or cleanup that has run longest, if one runs. */
    Optional<RunningReconciles.Running> oldestReconcile();

    /** The event sources that are not healthy now, as "controller/source". */
    List<String> unhealthySources();
  }

  private final Limits limits;
  private final boolean leaseProvesApiServer;
  private final Loop loop;
  private final Clock clock;

  // Guarded by this.
  private Instant unhealthySince;
  private boolean wasLive = true;

  /**
   * @param leaderElection whether this replica leads through a Lease, whose renewals prove the API
   *     server answers
   */
  public LoopLiveness(Limits limits, boolean leaderElection, Loop loop, Clock clock) {
    this.limits = limits;
    this.leaseProvesApiServer = leaderElection;
    this.loop = loop;
    this.clock = clock;
  }

  /** Empty while the loop works, else why it is stuck. */
  public synchronized Optional<String> notLive() {
    Optional<String> why = decide(clock.instant());
    if (why.isPresent() == wasLive) {
      wasLive = why.isEmpty();
      if (wasLive) {
        LOG.info("event=live-again");
      } else {
        LOG.warn("event=not-live reason=\"{}\"", why.get());
      }
    }
    return why;
  }

  private Optional<String> decide(Instant now) {
    if (!loop.leading()) {
      unhealthySince = null;
      return Optional.empty();
    }
    List<String> unhealthy = leaseProvesApiServer ? loop.unhealthySources() : List.of();
    if (unhealthy.isEmpty()) {
      unhealthySince = null;
    } else if (unhealthySince == null) {
      unhealthySince = now;
    }
    Optional<RunningReconciles.Running> oldest = loop.oldestReconcile();
    if (oldest.isPresent()) {
      Duration ran = Duration.between(oldest.get().since(), now);
      if (ran.compareTo(limits.reconcile()) > 0) {
        return Optional.of(
            "the reconcile of "
                + oldest.get().what()
                + " has run for "
                + seconds(ran)
                + " (since "
                + oldest.get().since().truncatedTo(ChronoUnit.SECONDS)
                + "), longer than any reconcile may take ("
                + limits.reconcile().toSeconds()
                + " s, --stuck-reconcile-after)");
      }
    }
    if (unhealthySince != null) {
      Duration down = Duration.between(unhealthySince, now);
      if (down.compareTo(limits.unhealthySources()) > 0) {
        return Optional.of(
            "event sources not healthy for "
                + seconds(down)
                + " (more than "
                + limits.unhealthySources().toSeconds()
                + " s) while this replica renews its Lease, so the API server answers: "
                + String.join(", ", unhealthy));
      }
    }
    return Optional.empty();
  }

  /** "301.2 s": a whole number alone could read "3 s, longer than 3 s". */
  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
