package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.kube.AgentEvents;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.observe.AgentMetrics.NodePass;
import dev.cnioperator.agent.observe.AgentMetrics.Restored;
import dev.cnioperator.agent.plugin.PluginOutcome;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's control loop: on every change of its CniNode's spec and every resync period, a {@link
 * NodeSync} pass and a status write. One thread does all of it, so passes never overlap. A pass
 * acts on a CniNode the API server has just sent: the scheduled pass reads it (GET); a pass a watch
 * event asked for takes the object that event delivered, which is as new as such a read and saves
 * every node one request per change. Without either (API server unreachable, CniNode missing)
 * nothing on disk changes.
 *
 * <p>One status write per change: when a pass applies content whose proof (or first CHECK and
 * cleanup) the network owners run at once, the pass leaves its status write to them, so "applied"
 * and the probe's report reach the API server together; {@link #FOLLOW_UP_WAIT} bounds the wait.
 * The status the API server holds is what this agent wrote last (it is the only writer of the
 * status), so a status write needs no read first; the scheduled pass's read puts right anything
 * else.
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  /**
   * The longest a pass's status write waits for the network owners' report on what it applied. The
   * owners ask for the write when their pass ends, whatever its outcome, so this is only the safety
   * net, not the usual path; a probe's ADD, CHECK and DEL take well under a second with the
   * reference plugins.
   */
  static final Duration FOLLOW_UP_WAIT = Duration.ofSeconds(10);

  /** The first wait before a failed status write is tried again; it doubles up to the resync. */
  static final Duration STATUS_RETRY = Duration.ofSeconds(1);

  private final OwnCniNode api;
  private final NodeSpecReader reader;
  private final NodeSync sync;
  private final NodeStatusBuilder statusBuilder;
  private final NetworkFollowUp networks;
  private final AgentMetrics metrics;
  private final AgentLiveness liveness;
  private final AgentEvents events;
  private final Duration resync;
  private final UnparsableFileAlerts unparsable = new UnparsableFileAlerts();
  private final ScheduledExecutorService loop = passThread();
  private final AtomicBoolean passPending = new AtomicBoolean();
  private final AtomicBoolean readPending = new AtomicBoolean();
  private final AtomicBoolean statusPending = new AtomicBoolean();

  /** The CniNode the watch delivered last; empty once deleted, null before the first event. */
  private final AtomicReference<Optional<CniNode>> delivered = new AtomicReference<>();

  private final AtomicReference<AppliedPass> lastPass = new AtomicReference<>();

  /** The CniNode status on the API server as far as this agent knows: read, or written by it. */
  private final AtomicReference<KnownStatus> known = new AtomicReference<>();

  /**
   * The wait before the next try of a failed status write, null while none is failing; only the
   * pass thread touches it and {@link #retryPending}.
   */
  private Duration statusRetry;

  private boolean retryPending;
  private SharedIndexInformer<CniNode> informer;

  public NodeAgent(
      OwnCniNode api,
      NodeSpecReader reader,
      NodeSync sync,
      NodeStatusBuilder statusBuilder,
      NetworkFollowUp networks,
      AgentMetrics metrics,
      AgentLiveness liveness,
      AgentEvents events,
      Duration resync) {
    this.api = api;
    this.reader = reader;
    this.sync = sync;
    this.statusBuilder = statusBuilder;
    this.networks = networks;
    this.metrics = metrics;
    this.liveness = liveness;
    this.events = events;
    this.resync = resync;
  }

  /** Prepares the directories, runs a first pass and starts watching. */
  public void start() throws java.io.IOException {
    sync.prepare();
    loop.scheduleWithFixedDelay(this::requestPass, 0, resync.toMillis(), TimeUnit.MILLISECONDS);
    // No informer resync: the scheduled pass above already comes round every period.
    informer = api.watch(this::seen, 0);
    LOG.info("event=agent-started node={} resync={}", api.nodeName(), resync);
  }

  /**
   * Asks for a pass soon, on a fresh read (GET) of the CniNode; requests that arrive while one is
   * waiting are folded into it.
   */
  public void requestPass() {
    readPending.set(true);
    schedulePass();
  }

  private void seen(CniNode latest, boolean specMayDiffer) {
    delivered.set(Optional.ofNullable(latest));
    if (specMayDiffer) {
      schedulePass();
    }
  }

  private void schedulePass() {
    if (passPending.compareAndSet(false, true)) {
      loop.execute(task(this::pass));
    }
  }

  /**
   * Asks for a status write from what is known now, without touching the disk; requests that arrive
   * while one is waiting are folded into it (it writes what is known when it runs). Unfolded, every
   * network pass's end queued a write, and while the API server hung each took the client's whole
   * timeout, so the writes queued up ahead of the passes.
   */
  public void requestStatus() {
    if (statusPending.compareAndSet(false, true)) {
      loop.execute(
          task(
              () -> {
                statusPending.set(false);
                publish();
              }));
    }
  }

  /** A task of the pass thread, whose beginning and end its liveness follows. */
  private Runnable task(Runnable work) {
    return () -> {
      liveness.nodeTaskBegan();
      try {
        work.run();
      } finally {
        liveness.nodeTaskEnded();
      }
    };
  }

  /** What the last completed pass found and did, null before the first. */
  public NodeSync.Result lastResult() {
    AppliedPass pass = lastPass.get();
    return pass == null ? null : pass.result();
  }

  private void pass() {
    passPending.set(false);
    boolean read = readPending.getAndSet(false);
    Optional<CniNode> node = read ? null : delivered.get();
    try {
      if (node == null) {
        node = api.fetch();
        node.ifPresent(n -> known.set(KnownStatus.read(n)));
      }
    } catch (KubernetesClientException e) {
      LOG.warn(
          "event=pass-skipped node={} reason=api-unreachable error=\"{}\"",
          api.nodeName(),
          e.getMessage());
      metrics.nodePass(NodePass.API_UNREACHABLE);
      return;
    }
    if (node.isEmpty()) {
      LOG.info("event=pass-skipped node={} reason=cninode-missing", api.nodeName());
      metrics.nodePass(NodePass.CNINODE_MISSING);
      return;
    }
    try {
      CniNode seen = node.get();
      KnownStatus before = known.get();
      if (before == null || !before.uid().equals(seen.getMetadata().getUid())) {
        known.set(KnownStatus.read(seen));
      }
      List<ManagedNetwork> current = reader.networks(seen.getSpec());
      NodeSync.Result result = sync.sync(current, reader.plugins(seen.getSpec()));
      lastPass.set(new AppliedPass(result, seen.getMetadata().getGeneration()));
      record(result);
      String uid = seen.getMetadata().getUid();
      unparsable.update(
          result.unparsableFiles(), (reason, message) -> events.warnCniNode(uid, reason, message));
      if (networks.afterPass(
          current, applied(current, result), probeReports(seen), this::requestStatus)) {
        loop.schedule(task(this::publish), FOLLOW_UP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } else {
        publish();
      }
      metrics.nodePass(NodePass.OK);
    } catch (RuntimeException | java.io.IOException e) {
      LOG.error("event=pass-failed node={} error=\"{}\"", api.nodeName(), e.toString(), e);
      metrics.nodePass(NodePass.ERROR);
    }
  }

  /** The probe reports of the CniNode's status, by network. */
  private static Map<String, ProbeReport> probeReports(CniNode node) {
    Map<String, ProbeReport> reports = new HashMap<>();
    if (node.getStatus() != null && node.getStatus().getNetworks() != null) {
      for (NodeNetworkStatus n : node.getStatus().getNetworks()) {
        if (n.getProbe() != null) {
          reports.put(n.getName(), n.getProbe());
        }
      }
    }
    return reports;
  }

  /** What the last successful pass did, and the spec generation it did it for. */
  private record AppliedPass(NodeSync.Result result, Long generation) {}

  /**
   * Only networks whose file on disk is the agent's get CHECK and cleanup: a Conflict means the
   * file, and so whatever network it names, belongs to someone else.
   */
  private static List<ManagedNetwork> applied(List<ManagedNetwork> all, NodeSync.Result result) {
    Set<String> ok = new HashSet<>();
    result.networks().stream()
        .filter(o -> o.state() == NetworkOutcome.State.Applied)
        .forEach(o -> ok.add(o.network()));
    return all.stream().filter(n -> ok.contains(n.name())).toList();
  }

  private void record(NodeSync.Result result) {
    for (NetworkOutcome.State s : NetworkOutcome.State.values()) {
      metrics.networks(
          s.name(), (int) result.networks().stream().filter(o -> o.state() == s).count());
    }
    result.networks().stream()
        .filter(NetworkOutcome::drift)
        .forEach(o -> metrics.fileRestored(Restored.CONFLIST));
    result.plugins().stream()
        .filter(PluginOutcome::restored)
        .forEach(p -> metrics.fileRestored(Restored.BINARY));
    metrics.unparsableFiles(result.unparsableFiles().size());
  }

  /** Writes the status when it differs from the one the API server holds. */
  private void publish() {
    AppliedPass pass = lastPass.get();
    KnownStatus current = known.get();
    if (pass == null || current == null || Optional.empty().equals(delivered.get())) {
      return;
    }
    // The generation the pass applied, not the newest seen: a newer spec is not yet observed.
    CniNodeStatus status =
        statusBuilder.build(pass.result(), networks::health, current.status(), pass.generation());
    try {
      if (api.publishStatus(current.status(), status)) {
        known.set(new KnownStatus(current.uid(), status));
      }
      statusRetry = null;
    } catch (KubernetesClientException e) {
      retryStatusLater(e);
    }
  }

  /**
   * A report that did not get through (API server unreachable, overloaded) is tried again with a
   * backoff, not left for the next resync: the operator's rollout waits for it. One try pending at
   * a time; the wait doubles up to the resync period and starts over after a write.
   */
  private void retryStatusLater(KubernetesClientException e) {
    Duration wait = statusRetry == null ? STATUS_RETRY : statusRetry;
    statusRetry = wait.multipliedBy(2).compareTo(resync) < 0 ? wait.multipliedBy(2) : resync;
    LOG.warn(
        "event=status-not-written node={} retryIn={} error=\"{}\"",
        api.nodeName(),
        wait,
        e.getMessage());
    if (!retryPending) {
      retryPending = true;
      loop.schedule(
          task(
              () -> {
                retryPending = false;
                publish();
              }),
          wait.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The pass thread. Delayed work (a held status write, a retry) is dropped at shutdown rather than
   * waited for: a stopping agent writes nothing more.
   */
  private static ScheduledExecutorService passThread() {
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(1, r -> new Thread(r, "node-pass"));
    pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return pool;
  }

  /** A status of the CniNode with this uid (another object of the same name starts afresh). */
  private record KnownStatus(String uid, CniNodeStatus status) {
    static KnownStatus read(CniNode node) {
      return new KnownStatus(node.getMetadata().getUid(), node.getStatus());
    }
  }

  /** Stops watching and finishes the pass under way; the node's files stay as they are. */
  @Override
  public void close() throws InterruptedException {
    if (informer != null) {
      informer.close();
    }
    loop.shutdown();
    loop.awaitTermination(30, TimeUnit.SECONDS);
    LOG.info("event=agent-stopped node={}", api.nodeName());
  }
}
