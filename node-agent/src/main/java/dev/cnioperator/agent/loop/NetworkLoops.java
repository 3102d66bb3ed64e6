package dev.cnioperator.agent.loop;

import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.node.NodeNetworks;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjLongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loops of this node's networks: one {@link NetworkLoop} per network (name and uid), each a key
 * of a {@link WorkQueue} served by {@link #WORKERS} workers, so that no network ever has two runs
 * at once. A run does what is due on the conflist the node loop last applied: the probe of new
 * content (and again every {@code check.intervalSeconds} while it fails), CHECK every {@code
 * check.intervalSeconds}, the cleanup of stale attachments often enough to remove them soon after
 * the grace period, STATUS for 1.1.0 networks, and the status of the claims on the network that the
 * kubelet prepared here, as often as the cleanup (CHECK where it is off). A network is added to the
 * queue when the node loop applies its conflist and by a timer every second; a run that did work,
 * or that the node loop waits for, ends with a report to the node loop.
 */
public final class NetworkLoops implements NodeNetworks, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkLoops.class);

  /** Runs at once, over all networks. */
  static final int WORKERS = 2;

  private final NetworkWork work;
  private final Clock clock;
  private final AgentMetrics metrics;
  private final AgentLiveness liveness;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "network-timer"));
  private final WorkQueue<String> queue = new WorkQueue<>(WORKERS, "network-worker", this::run);
  private final Map<String, NetworkLoop> loops = new ConcurrentHashMap<>();
  private volatile ObjLongConsumer<String> reports = (name, reconcile) -> {};

  /**
   * @param metrics where each network's series are made (and removed with its loop)
   * @param liveness told of every tick and of every run's beginning and end
   */
  public NetworkLoops(NetworkWork work, Clock clock, AgentMetrics metrics, AgentLiveness liveness) {
    this.work = work;
    this.clock = clock;
    this.metrics = metrics;
    this.liveness = liveness;
  }

  /**
   * Starts the timer.
   *
   * @param reports told, when a run that did work or that a reconcile asked for ends, the network's
   *     name and the last reconcile that had asked for a run when this one began
   */
  public void start(ObjLongConsumer<String> reports) {
    this.reports = reports;
    timer.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
  }

  private void tick() {
    liveness.ticked();
    loops.keySet().forEach(queue::add);
  }

  @Override
  public Set<String> applied(
      long reconcile,
      List<ManagedNetwork> current,
      List<ManagedNetwork> applied,
      Map<String, ProbeReport> reported) {
    track(current, reported);
    Map<String, ManagedNetwork> byName = new HashMap<>();
    applied.stream().filter(n -> n.list() != null).forEach(n -> byName.put(n.name(), n));
    Set<String> asked = new HashSet<>();
    for (NetworkLoop loop : loops.values()) {
      ManagedNetwork n = byName.get(loop.name);
      loop.applied = n != null && loop.isFor(n) ? n : null;
      if (loop.applied != null) {
        loop.askedBy = reconcile;
        queue.add(loop.name);
        asked.add(loop.name);
      }
    }
    return asked;
  }

  @Override
  public NetworkHealth health(String network) {
    NetworkLoop loop = loops.get(network);
    return loop == null ? NetworkHealth.UNKNOWN : loop.health();
  }

  /**
   * One loop per network of the spec: a network met for the first time gets a new one (with the
   * status's probe report when the agent has not met the name since it started), and so does one
   * whose uid changed, however quickly the old one went; the loop of a network gone is dropped. A
   * run under way on a dropped loop ends on it and is forgotten with it. A dropped loop's series
   * are removed before its successor's can be registered: both have the same labels.
   */
  private void track(List<ManagedNetwork> current, Map<String, ProbeReport> reported) {
    Set<String> names = new HashSet<>();
    for (ManagedNetwork n : current) {
      names.add(n.name());
      NetworkLoop old = loops.get(n.name());
      if (old != null && old.isFor(n)) {
        continue;
      }
      ProbeReport before = old == null ? reported.get(n.name()) : null;
      NetworkHealth start =
          before == null ? NetworkHealth.UNKNOWN : NetworkHealth.UNKNOWN.withProbe(before);
      if (old != null) {
        old.metrics.close();
        LOG.info(
            "event=network-replaced network={} uid={} previousUid={}", n.name(), n.uid(), old.uid);
      }
      loops.put(n.name(), new NetworkLoop(n, start, metrics.network(n.name())));
    }
    for (String gone : Set.copyOf(loops.keySet())) {
      if (!names.contains(gone)) {
        loops.remove(gone).metrics.close();
        LOG.info("event=network-forgotten network={}", gone);
      }
    }
  }

  /**
   * What is due on one network now: its proof, its CHECK, its cleanup, its claims' status. The
   * claims' status changes nothing the node loop reports: a run with only that due is no work for
   * it.
   */
  private record Due(boolean prove, boolean check, boolean clean, boolean claims) {
    boolean any() {
      return prove || check || clean;
    }
  }

  private static Due due(NetworkLoop loop, ManagedNetwork n, Instant now) {
    return new Due(
        probeDue(n, loop.health().probe(), loop.lastProbe, now),
        n.attachmentsCounted() && !now.isBefore(loop.nextCheck),
        n.cleanup().enabled() && !now.isBefore(loop.nextCleanup),
        !now.isBefore(loop.nextClaims));
  }

  /**
   * A content is proven once, when the operator asks for proof; a failed proof again every CHECK
   * interval, so that a node fixed meanwhile can let a paused rollout go on.
   *
   * @param attempted when this agent last probed the network, null if not since it started
   */
  static boolean probeDue(ManagedNetwork n, ProbeReport last, Instant attempted, Instant now) {
    if (n.proof() == ManagedNetwork.Proof.NONE) {
      return false;
    }
    if (last == null || !n.conflist().sha256().equals(last.getSha256())) {
      return true;
    }
    Instant since = attempted != null ? attempted : Instant.parse(last.getTime());
    return last.getResult() == ProbeResult.Failed
        && !now.isBefore(since.plus(n.check().interval()));
  }

  /** The earlier report when the outcome is the same, so that a retry writes no status. */
  static ProbeReport unlessSame(ProbeReport previous, ProbeReport next) {
    boolean same =
        previous != null
            && previous.getSha256().equals(next.getSha256())
            && previous.getResult() == next.getResult()
            && Objects.equals(previous.getMessage(), next.getMessage());
    return same ? previous : next;
  }

  /** Often enough that a stale item is swept soon after its grace period ends. */
  static Duration cleanupInterval(ManagedNetwork n) {
    Duration half = n.cleanup().gracePeriod().dividedBy(2);
    Duration floor = Duration.ofSeconds(1);
    Duration wanted = half.compareTo(floor) < 0 ? floor : half;
    return wanted.compareTo(n.check().interval()) < 0 ? wanted : n.check().interval();
  }

  /**
   * How often the status of the claims on a network is brought up to date with its attachments: as
   * often as its cleanup, which reads them too, or, where that is off, as its CHECK (both read the
   * same cache; the check interval also applies where CHECK is off). The writes themselves are only
   * those of a change.
   */
  static Duration claimsInterval(ManagedNetwork n) {
    return n.cleanup().enabled() ? cleanupInterval(n) : n.check().interval();
  }

  /** One run on a network: what is due on the conflist last applied, then the report. */
  private void run(String name) {
    NetworkLoop loop = loops.get(name);
    if (loop == null) {
      return;
    }
    long asked = loop.askedBy;
    ManagedNetwork n = loop.applied;
    Instant now = Instant.now(clock);
    Due due = n == null ? new Due(false, false, false, false) : due(loop, n, now);
    boolean working = due.any() || (n != null && !loop.leftoversRemoved);
    if (working || due.claims()) {
      if (due.check()) {
        loop.nextCheck = now.plus(n.check().interval());
      }
      if (due.clean()) {
        loop.nextCleanup = now.plus(cleanupInterval(n));
      }
      if (due.claims()) {
        loop.nextClaims = now.plus(claimsInterval(n));
      }
      liveness.networkRunBegan();
      try {
        runDue(loop, n, due);
      } finally {
        liveness.networkRunEnded();
      }
    }
    if (working || asked != loop.answered) {
      loop.answered = asked;
      reports.accept(name, asked);
    }
  }

  private void runDue(NetworkLoop loop, ManagedNetwork n, Due due) {
    try {
      if (due.prove()) {
        loop.lastProbe = Instant.now(clock);
        ProbeReport report = work.prove(n, live -> work.check(live, loop.reported, loop.metrics));
        loop.update(h -> h.withProbe(unlessSame(h.probe(), report)));
        loop.leftoversRemoved = true;
      } else if (!loop.leftoversRemoved) {
        // Proven before a restart (the report came back from the status): a probe killed with the
        // agent may still have left something.
        loop.leftoversRemoved = true;
        work.sweep(n);
      }
      if (due.check()) {
        AttachmentSummary summary = work.check(n, loop.reported, loop.metrics);
        String at = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        String status = work.pluginStatus(n);
        loop.update(h -> h.withCheck(summary, status, at));
      }
      if (due.clean()) {
        StaleAttachmentCleaner.Report report = work.clean(n, loop.cleanup, loop.metrics);
        loop.update(
            h -> h.withCleanup(report.summary(), report.message(), report.claimableAddresses()));
      }
      if (due.claims()) {
        // After the cleanup: an attachment it released is not written into a claim's status.
        work.claimStatuses(n);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.error("event=network-run-failed network={} error=\"{}\"", n.name(), e.toString(), e);
    }
  }

  @Override
  public void close() throws InterruptedException {
    timer.shutdownNow();
    queue.close();
  }
}
