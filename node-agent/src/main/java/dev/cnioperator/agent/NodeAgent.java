package dev.cnioperator.agent;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.status.CniNodeClient;
import dev.cnioperator.agent.status.HealthBoard;
import dev.cnioperator.agent.status.NodeStatusBuilder;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
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
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  private final CniNodeClient api;
  private final NodeSpecReader reader;
  private final NodeSync sync;
  private final NodeStatusBuilder statusBuilder;
  private final HealthBoard health;
  private final AgentMetrics metrics;
  private final Duration resync;
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "node-pass"));
  private final AtomicBoolean passPending = new AtomicBoolean();
  private final AtomicBoolean readPending = new AtomicBoolean();

  /** The CniNode the watch delivered last; empty once deleted, null before the first event. */
  private final AtomicReference<Optional<CniNode>> delivered = new AtomicReference<>();

  private final AtomicReference<AppliedPass> lastPass = new AtomicReference<>();
  private final AtomicReference<List<ManagedNetwork>> networks = new AtomicReference<>(List.of());
  private volatile long lastLoopNanos = System.nanoTime();
  private SharedIndexInformer<CniNode> informer;

  public NodeAgent(
      CniNodeClient api,
      NodeSpecReader reader,
      NodeSync sync,
      NodeStatusBuilder statusBuilder,
      HealthBoard health,
      AgentMetrics metrics,
      Duration resync) {
    this.api = api;
    this.reader = reader;
    this.sync = sync;
    this.statusBuilder = statusBuilder;
    this.health = health;
    this.metrics = metrics;
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
      loop.execute(this::pass);
    }
  }

  /** Asks for a status write from what is known now, without touching the disk. */
  public void requestStatus() {
    loop.execute(() -> publish(null));
  }

  /** The networks of the last successful pass, for the CHECK and cleanup loops. */
  public List<ManagedNetwork> networks() {
    return networks.get();
  }

  /** What the last completed pass found and did, null before the first. */
  public NodeSync.Result lastResult() {
    AppliedPass pass = lastPass.get();
    return pass == null ? null : pass.result();
  }

  /** Live while the loop thread keeps coming round. */
  public boolean live() {
    long quiet = System.nanoTime() - lastLoopNanos;
    return !loop.isShutdown() && quiet < resync.multipliedBy(3).plusSeconds(30).toNanos();
  }

  private void pass() {
    passPending.set(false);
    lastLoopNanos = System.nanoTime();
    boolean read = readPending.getAndSet(false);
    Optional<CniNode> node = read ? null : delivered.get();
    try {
      if (node == null) {
        node = api.fetch();
      }
    } catch (KubernetesClientException e) {
      LOG.warn(
          "event=pass-skipped node={} reason=api-unreachable error=\"{}\"",
          api.nodeName(),
          e.getMessage());
      metrics.pass("api_unreachable");
      return;
    }
    if (node.isEmpty()) {
      LOG.info("event=pass-skipped node={} reason=cninode-missing", api.nodeName());
      metrics.pass("cninode_missing");
      return;
    }
    try {
      List<ManagedNetwork> current = reader.networks(node.get().getSpec());
      NodeSync.Result result = sync.sync(current, reader.plugins(node.get().getSpec()));
      recallProbes(node.get());
      networks.set(applied(current, result));
      lastPass.set(new AppliedPass(result, node.get().getMetadata().getGeneration()));
      health.retain(new HashSet<>(current.stream().map(ManagedNetwork::name).toList()));
      record(result);
      publish(node.get());
      metrics.pass("ok");
    } catch (RuntimeException | java.io.IOException e) {
      LOG.error("event=pass-failed node={} error=\"{}\"", api.nodeName(), e.toString(), e);
      metrics.pass("error");
    }
  }

  /**
   * Takes back the probe reports of the status for networks the board knows no probe of (after a
   * restart), so that content proven before is not probed again; one that changed since is.
   */
  private void recallProbes(CniNode node) {
    if (node.getStatus() == null || node.getStatus().getNetworks() == null) {
      return;
    }
    for (NodeNetworkStatus n : node.getStatus().getNetworks()) {
      if (n.getProbe() != null && health.get(n.getName()).probe() == null) {
        health.update(n.getName(), h -> h.probe() == null ? h.withProbe(n.getProbe()) : h);
      }
    }
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
        .forEach(o -> metrics.driftRestored("conflist"));
  }

  /** Writes the status when it changed; {@code node} null means read it fresh first. */
  private void publish(CniNode node) {
    AppliedPass pass = lastPass.get();
    if (pass == null) {
      return;
    }
    try {
      CniNode current = node != null ? node : api.fetch().orElse(null);
      if (current == null) {
        return;
      }
      // The generation the pass applied, not the one just read: a newer spec is not yet observed.
      api.publishStatus(
          current,
          statusBuilder.build(pass.result(), health, current.getStatus(), pass.generation()));
    } catch (KubernetesClientException e) {
      LOG.warn("event=status-not-written node={} error=\"{}\"", api.nodeName(), e.getMessage());
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
