package dev.cnioperator.agent.owner;

import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.node.NetworkFollowUp;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owners of this node's networks, one {@link NetworkOwner} per network (name and uid), and the
 * ticker that runs their work: the probe of each new content (and again every {@code
 * check.intervalSeconds} while it fails), the CHECK pass every {@code check.intervalSeconds}, the
 * cleanup pass often enough to sweep soon after the grace period, and STATUS for 1.1.0 networks.
 * One pass per network at a time, on a small pool; each pass's end asks for a status write.
 */
public final class NetworkOwners implements NetworkFollowUp, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkOwners.class);

  private final NetworkSteps steps;
  private final Clock clock;
  private final AgentMetrics metrics;
  private final AgentLiveness liveness;
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "network-ticker"));
  private final ExecutorService passes =
      Executors.newFixedThreadPool(2, r -> new Thread(r, "network-pass"));
  private final Map<String, NetworkOwner> owners = new ConcurrentHashMap<>();

  /** The networks the last node pass applied; read and written on the ticker's thread. */
  private List<ManagedNetwork> applied = List.of();

  private volatile Runnable statusChanged = () -> {};

  /**
   * @param metrics where each owner's series are made (and removed with the owner)
   * @param liveness told of every tick and of every network pass's beginning and end
   */
  public NetworkOwners(
      NetworkSteps steps, Clock clock, AgentMetrics metrics, AgentLiveness liveness) {
    this.steps = steps;
    this.clock = clock;
    this.metrics = metrics;
    this.liveness = liveness;
  }

  public void start() {
    ticker.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
  }

  /**
   * Takes the node pass's networks (an owner for each new one, none any more for one gone or
   * replaced by another of the same name) and starts, now rather than at the next tick, the work
   * due on {@code applied}: the proof of a new content, the CHECK and cleanup passes due, the first
   * ones of a new network included. True when there is some, or a pass on one of them is still
   * under way: either asks for a status write when it ends. (A pass whose probe has reported but
   * whose cleanup has not would otherwise let the node pass write a status that the cleanup's end
   * writes again.)
   *
   * <p>All of it happens on the ticker's thread: a tick claims every network for a moment, even one
   * with nothing due, and a claim seen from another thread would pass for a pass under way whose
   * end never asks for the write.
   */
  @Override
  public boolean afterPass(
      List<ManagedNetwork> current,
      List<ManagedNetwork> applied,
      Map<String, ProbeReport> reported,
      Runnable statusChanged) {
    try {
      return ticker
          .submit(() -> afterPassOnTicker(current, applied, reported, statusChanged))
          .get();
    } catch (RejectedExecutionException | CancellationException | ExecutionException stopped) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public NetworkHealth health(String network) {
    NetworkOwner owner = owners.get(network);
    return owner == null ? NetworkHealth.UNKNOWN : owner.health();
  }

  private boolean afterPassOnTicker(
      List<ManagedNetwork> current,
      List<ManagedNetwork> applied,
      Map<String, ProbeReport> reported,
      Runnable statusChanged) {
    this.statusChanged = statusChanged;
    track(current, reported);
    this.applied = List.copyOf(applied);
    Instant now = Instant.now(clock);
    boolean work = false;
    for (ManagedNetwork n : this.applied) {
      NetworkOwner owner = owners.get(n.name());
      work |= n.list() != null && (owner.running.get() || due(owner, n, now).any());
    }
    if (work) {
      tick();
    }
    return work;
  }

  /**
   * One owner per network of the spec: a network met for the first time gets a new one (with the
   * status's probe report when the agent has not met the name since it started), and so does one
   * whose uid changed, however quickly the old one went; the owner of a network gone is dropped. A
   * pass under way on a dropped owner ends on it and is forgotten with it. A dropped owner's series
   * are removed before its successor's can be registered: both have the same labels.
   */
  private void track(List<ManagedNetwork> current, Map<String, ProbeReport> reported) {
    Set<String> names = new HashSet<>();
    for (ManagedNetwork n : current) {
      names.add(n.name());
      NetworkOwner old = owners.get(n.name());
      if (old != null && old.owns(n)) {
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
      owners.put(n.name(), new NetworkOwner(n, start, metrics.network(n.name())));
    }
    for (String gone : Set.copyOf(owners.keySet())) {
      if (!names.contains(gone)) {
        owners.remove(gone).metrics.close();
        LOG.info("event=network-forgotten network={}", gone);
      }
    }
  }

  /** What is due on one network now: its proof, its CHECK pass, its cleanup pass. */
  private record Due(boolean prove, boolean check, boolean clean) {
    boolean any() {
      return prove || check || clean;
    }
  }

  private static Due due(NetworkOwner owner, ManagedNetwork n, Instant now) {
    return new Due(
        probeDue(n, owner.health().probe(), owner.lastProbe, now),
        n.checkable() && !now.isBefore(owner.nextCheck),
        n.cleanup().enabled() && !now.isBefore(owner.nextCleanup));
  }

  private void tick() {
    liveness.ticked();
    Instant now = Instant.now(clock);
    for (ManagedNetwork n : applied) {
      NetworkOwner owner = owners.get(n.name());
      if (n.list() == null
          || owner == null
          || !owner.owns(n)
          || !owner.running.compareAndSet(false, true)) {
        continue;
      }
      Due due = due(owner, n, now);
      if (!due.any() && owner.swept) {
        owner.running.set(false);
        continue;
      }
      if (due.check()) {
        owner.nextCheck = now.plus(n.check().interval());
      }
      if (due.clean()) {
        owner.nextCleanup = now.plus(cleanupInterval(n));
      }
      passes.execute(() -> run(owner, n, due));
    }
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

  private void run(NetworkOwner owner, ManagedNetwork n, Due due) {
    liveness.networkPassBegan();
    try {
      if (due.prove()) {
        owner.lastProbe = Instant.now(clock);
        ProbeReport report =
            steps.prove(n, live -> steps.check(live, owner.reported, owner.metrics));
        owner.update(h -> h.withProbe(unlessSame(h.probe(), report)));
        owner.swept = true;
      } else if (!owner.swept) {
        // Proven before a restart (the report came back from the status): a probe killed with the
        // agent may still have left something.
        owner.swept = true;
        steps.sweep(n);
      }
      if (due.check()) {
        AttachmentSummary summary = steps.check(n, owner.reported, owner.metrics);
        String at = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        String status = steps.pluginStatus(n);
        owner.update(h -> h.withCheck(summary, status, at));
      }
      if (due.clean()) {
        StaleAttachmentCleaner.Report report = steps.clean(n, owner.cleanup, owner.metrics);
        owner.update(h -> h.withCleanup(report.summary(), report.message()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.error("event=network-pass-failed network={} error=\"{}\"", n.name(), e.toString(), e);
    } finally {
      liveness.networkPassEnded();
      owner.running.set(false);
      // Always: a node pass may be holding its status write for this one (NodeAgent's follow-up).
      statusChanged.run();
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Runnable never : ticker.shutdownNow()) {
      if (never instanceof Future<?> asked) {
        asked.cancel(false); // a startDue waiting on it answers false
      }
    }
    passes.shutdown();
    passes.awaitTermination(30, TimeUnit.SECONDS);
  }
}
