package dev.cnioperator.agent.owner;

import dev.cnioperator.agent.check.AttachmentChecker;
import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.probe.RevisionProbe;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs, per applied network, the probe of each new content (and again every {@code
 * check.intervalSeconds} while it fails), the CHECK pass every {@code check.intervalSeconds}, the
 * cleanup pass often enough to sweep soon after the grace period, and STATUS for 1.1.0 networks;
 * results go to the health board and a status write is asked for.
 */
public final class NetworkOwners implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NetworkOwners.class);
  private static final Duration LIVE_WITHIN = Duration.ofSeconds(30);

  private final Supplier<List<ManagedNetwork>> networks;
  private final AttachmentChecker checker;
  private final StaleAttachmentCleaner cleaner;
  private final RevisionProbe probe;
  private final CniRuntime runtime;
  private final HealthBoard health;
  private final Runnable statusChanged;
  private final Clock clock;
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "network-loops"));
  private final ExecutorService passes =
      Executors.newFixedThreadPool(2, r -> new Thread(r, "network-pass"));
  private final Map<String, Instant> nextCheck = new ConcurrentHashMap<>();
  private final Map<String, Instant> nextCleanup = new ConcurrentHashMap<>();
  private final Map<String, Boolean> running = new ConcurrentHashMap<>();
  private final Set<String> swept = ConcurrentHashMap.newKeySet();
  private final Map<String, Instant> lastProbe = new ConcurrentHashMap<>();
  private volatile long lastTickNanos = System.nanoTime();

  public NetworkOwners(
      Supplier<List<ManagedNetwork>> networks,
      AttachmentChecker checker,
      StaleAttachmentCleaner cleaner,
      RevisionProbe probe,
      CniRuntime runtime,
      HealthBoard health,
      Runnable statusChanged,
      Clock clock) {
    this.networks = networks;
    this.checker = checker;
    this.cleaner = cleaner;
    this.probe = probe;
    this.runtime = runtime;
    this.health = health;
    this.statusChanged = statusChanged;
    this.clock = clock;
  }

  public void start() {
    ticker.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
  }

  /**
   * Live while the ticker keeps coming round (it ticks every second and hands passes to workers, so
   * a hanging plugin does not stop it; the plugin timeout bounds each pass).
   */
  public boolean live() {
    return !ticker.isShutdown() && System.nanoTime() - lastTickNanos < LIVE_WITHIN.toNanos();
  }

  /**
   * Starts, now rather than at the next tick, the work due on {@code applied} (the proof of a new
   * content; the CHECK and cleanup passes due, the first ones of a new network included), as the
   * tick would. True when there is some, or a pass on one of them is still under way: either asks
   * for a status write when it ends. (A pass whose probe has reported but whose cleanup has not
   * would otherwise let the node pass write a status that the cleanup's end writes again.)
   *
   * <p>The answer is found on the ticker's thread: a tick claims every network for a moment, even
   * one with nothing due, and a claim seen from another thread would pass for a pass under way
   * whose end never asks for the write.
   */
  public boolean startDue(List<ManagedNetwork> applied) {
    try {
      return ticker.submit(() -> startDueOnTicker(applied)).get();
    } catch (RejectedExecutionException | CancellationException | ExecutionException stopped) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean startDueOnTicker(List<ManagedNetwork> applied) {
    Instant now = Instant.now(clock);
    if (applied.stream()
        .noneMatch(n -> n.list() != null && (running.containsKey(n.name()) || due(n, now).any()))) {
      return false;
    }
    tick();
    return true;
  }

  /** What is due on one network now: its proof, its CHECK pass, its cleanup pass. */
  private record Due(boolean prove, boolean check, boolean clean) {
    boolean any() {
      return prove || check || clean;
    }
  }

  private Due due(ManagedNetwork n, Instant now) {
    return new Due(
        probeDue(n, health.get(n.name()).probe(), lastProbe.get(n.name()), now),
        n.checkable() && !now.isBefore(nextCheck.getOrDefault(n.name(), Instant.MIN)),
        n.cleanup().enabled() && !now.isBefore(nextCleanup.getOrDefault(n.name(), Instant.MIN)));
  }

  private void tick() {
    lastTickNanos = System.nanoTime();
    Instant now = Instant.now(clock);
    for (ManagedNetwork n : networks.get()) {
      if (n.list() == null || running.putIfAbsent(n.name(), true) != null) {
        continue;
      }
      Due due = due(n, now);
      if (!due.any() && swept.contains(n.name())) {
        running.remove(n.name());
        continue;
      }
      if (due.check()) {
        nextCheck.put(n.name(), now.plus(n.check().interval()));
      }
      if (due.clean()) {
        nextCleanup.put(n.name(), now.plus(cleanupInterval(n)));
      }
      passes.execute(() -> run(n, due.prove(), due.check(), due.clean()));
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
            && java.util.Objects.equals(previous.getMessage(), next.getMessage());
    return same ? previous : next;
  }

  /** Often enough that a stale item is swept soon after its grace period ends. */
  static Duration cleanupInterval(ManagedNetwork n) {
    Duration half = n.cleanup().gracePeriod().dividedBy(2);
    Duration floor = Duration.ofSeconds(1);
    Duration wanted = half.compareTo(floor) < 0 ? floor : half;
    return wanted.compareTo(n.check().interval()) < 0 ? wanted : n.check().interval();
  }

  private void run(ManagedNetwork n, boolean prove, boolean check, boolean clean) {
    try {
      if (prove) {
        lastProbe.put(n.name(), Instant.now(clock));
        ProbeReport report = probe.prove(n);
        health.update(n.name(), h -> h.withProbe(unlessSame(h.probe(), report)));
        swept.add(n.name());
      } else if (swept.add(n.name())) {
        // Proven before a restart (the report came back from the status): a probe killed with the
        // agent may still have left something.
        probe.sweep(n);
      }
      if (check) {
        AttachmentSummary summary = checker.check(n);
        String at = Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
        String status = pluginStatus(n);
        health.update(n.name(), h -> h.withCheck(summary, status, at));
      }
      if (clean) {
        StaleAttachmentCleaner.Report report = cleaner.clean(n);
        health.update(n.name(), h -> h.withCleanup(report.summary(), report.message()));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.error("event=network-pass-failed network={} error=\"{}\"", n.name(), e.toString(), e);
    } finally {
      running.remove(n.name());
      // Always: a node pass may be holding its status write for this one (NodeAgent.FollowUp).
      statusChanged.run();
    }
  }

  /**
   * STATUS for 1.1.0 networks: "Available" or the plugin's error; null where STATUS does not exist.
   */
  private String pluginStatus(ManagedNetwork n) {
    if (!n.list().cniVersion().supportsGcAndStatus()) {
      return null;
    }
    try {
      runtime.getStatusNetworkList(n.list());
      return "Available";
    } catch (CniException e) {
      return e.getMessage();
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
