package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.dra.NodeDevices;
import dev.cnioperator.agent.dra.NodeResourceSlice;
import dev.cnioperator.agent.host.ConfDirWatch;
import dev.cnioperator.agent.kube.AgentEvents;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.observe.AgentLiveness;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.agent.observe.AgentMetrics.NodePass;
import dev.cnioperator.agent.observe.AgentMetrics.Restored;
import dev.cnioperator.agent.plugin.PluginOutcome;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.KnownFields;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.config.NetworkConfigList;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node loop: the agent reconciles its node with its CniNode on one thread, and every change of
 * the state below happens there, so none of it needs a lock. A watch event, the resync timer, a
 * network's report and a status request from the runtime watch each queue a task on the loop; a
 * reconcile (a {@link NodeSync} of binaries and conflists, then a status write) never overlaps
 * another or a status write.
 *
 * <p>A reconcile acts on a CniNode the API server has just sent: the resync reads it (GET); one a
 * watch event asked for takes the object that event delivered, which is as new as such a read and
 * saves every node one request per change. Without either (API server unreachable, CniNode missing)
 * nothing on disk changes.
 *
 * <p>One status write per change: a reconcile tells each network whose conflist it applied (its
 * {@link NodeNetworks} loop runs the proof, or the first CHECK and cleanup, at once) and writes the
 * status when all of them have reported, so "applied" and the probe's report reach the API server
 * together; {@link #REPORT_WAIT} bounds the wait. The status the API server holds is what this
 * agent wrote last (it is the only writer of the status), so a status write needs no read first;
 * the resync's read puts right anything else.
 */
public final class NodeAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);

  /**
   * The longest a reconcile's status write waits for the reports of the networks it told. A network
   * reports when its run ends, whatever its outcome, so this is only the safety net, not the usual
   * path; a probe's ADD, CHECK and DEL take well under a second with the reference plugins.
   */
  static final Duration REPORT_WAIT = Duration.ofSeconds(10);

  /** The first wait before a failed status write is tried again; it doubles up to the resync. */
  static final Duration STATUS_RETRY = Duration.ofSeconds(1);

  private final OwnCniNode api;
  private final NodeSpecReader reader;
  private final NodeSync sync;
  private final NodeStatusBuilder statusBuilder;
  private final NodeNetworks networks;
  private final AgentMetrics metrics;
  private final AgentLiveness liveness;
  private final AgentEvents events;
  private final Duration resync;

  /** The node's ResourceSlice of published networks; null where the agent publishes none. */
  private final NodeResourceSlice slice;

  /** The CniNode spec the last pass acted on, whose published networks the slice holds. */
  private CniNodeSpec devicesSpec;

  /** The devices of the last publishing, by name; read by the kubelet plugin's threads. */
  private volatile Map<String, Device> publishedDevices = Map.of();

  /** Whether the Event saying the cluster cannot take the devices was recorded. */
  private boolean devicesRefusalTold;

  private final ScheduledExecutorService loop = nodeLoop();

  /** What the last completed reconcile did; read by readiness from the health server's threads. */
  private volatile Reconciled lastReconcile;

  // Everything below belongs to the loop's thread.
  private final UnparsableFileAlerts unparsable = new UnparsableFileAlerts();

  /** The networks told of as Contested; only the pass thread touches it. */
  private Set<String> contested = Set.of();

  /** The CniNode the watch delivered last; null before the first event and after a delete. */
  private CniNode delivered;

  /** The watch's last event was the CniNode's deletion: no status is written. */
  private boolean deleted;

  /**
   * The fields of the CniNode's spec this agent does not know, while the last pass refused it for
   * them ({@link #refuse}); empty otherwise. The status written says so, whatever the last
   * completed reconcile did.
   */
  private List<String> refused = List.of();

  private boolean reconcileQueued;
  private boolean readWanted;
  private boolean statusQueued;

  /** What the next status write waits for and carries. */
  private final PendingStatus pending = new PendingStatus();

  /** How often in a row a pass that found a file being written runs again before it reports. */
  private static final int QUICK_LOOKS = 4;

  private static final Duration QUICK_LOOK_DELAY = Duration.ofMillis(20);

  /** The passes run again in a row for a file being written ({@link #lookAgainSoon}). */
  private int quickLooks;

  /** The CniNode status on the API server as far as this agent knows: read, or written by it. */
  private KnownStatus known;

  /** The wait before the next try of a failed status write, null while none is failing. */
  private Duration statusRetry;

  private boolean retryPending;
  private SharedIndexInformer<CniNode> informer;
  private final ConfDirWatch confDirWatch;
  private final ConfDirWatch multusDirWatch;

  public NodeAgent(
      OwnCniNode api,
      NodeSpecReader reader,
      NodeSync sync,
      NodeStatusBuilder statusBuilder,
      NodeNetworks networks,
      AgentMetrics metrics,
      AgentLiveness liveness,
      AgentEvents events,
      Duration resync,
      Function<Runnable, NodeResourceSlice> slices) {
    this.api = api;
    // The slice's watch asks this agent for a pass when someone else changes or deletes it.
    this.slice = slices == null ? null : slices.apply(this::devicesChangedByOthers);
    this.reader = reader;
    this.sync = sync;
    this.statusBuilder = statusBuilder;
    this.networks = networks;
    this.metrics = metrics;
    this.liveness = liveness;
    this.events = events;
    this.resync = resync;
    this.confDirWatch =
        new ConfDirWatch(
            sync.runtimeConfDir(), names -> directoryChanged(ConfigDirectory.Runtime, names));
    this.multusDirWatch =
        new ConfDirWatch(
            sync.multusConfDir(), names -> directoryChanged(ConfigDirectory.Multus, names));
  }

  /**
   * Files changed in a directory the agent has a file in: a reconcile, so that its file changed or
   * taken away (or a chain stripped from another product's file) is put back within a moment, not
   * at the next resync. It reads the CniNode first, as the resync does: while the API server is
   * unreachable the agent cannot know the spec still wants the file, and changes nothing on disk.
   * Not for the agent's own writes coming back: each file as it wrote it, or no configuration file
   * at all.
   */
  private void directoryChanged(ConfigDirectory directory, Set<String> names) {
    onLoop(
        () -> {
          if (names.contains(ConfDirWatch.UNKNOWN)
              || names.stream().anyMatch(name -> !sync.asWritten(directory, name))) {
            readWanted = true;
            reconcileWanted();
          }
        });
  }

  /** Prepares the directories, runs a first reconcile and starts watching. */
  public void start() throws java.io.IOException {
    sync.prepare();
    loop.scheduleWithFixedDelay(this::resyncDue, 0, resync.toMillis(), TimeUnit.MILLISECONDS);
    // No informer resync: the loop's own comes round every period.
    informer = api.watch(this::seen, 0);
    LOG.info("event=agent-started node={} resync={}", api.nodeName(), resync);
  }

  /** Asks for a status write from what is known now, without touching the disk. */
  public void requestStatus() {
    onLoop(this::statusWanted);
  }

  /**
   * A network's run ended: the report a status write may be waiting for.
   *
   * @param reconcile the last reconcile that had asked the network for a run when this one began
   */
  public void networkReported(String network, long reconcile) {
    onLoop(
        () -> {
          pending.reported(network, reconcile);
          statusWanted();
        });
  }

  /** Queues a short task on the loop; after {@link #close()} there is nothing more to do. */
  private void onLoop(Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException stopping) {
      // the agent is stopping: it writes nothing more
    }
  }

  private void seen(CniNode latest, boolean specMayDiffer) {
    onLoop(
        () -> {
          delivered = latest;
          deleted = latest == null;
          if (specMayDiffer) {
            reconcileWanted();
          }
        });
  }

  private void resyncDue() {
    readWanted = true;
    reconcileWanted();
  }

  /** Queues a reconcile; wishes that arrive while one is queued are folded into it. */
  private void reconcileWanted() {
    if (!reconcileQueued) {
      reconcileQueued = true;
      loop.execute(timed(this::reconcile));
    }
  }

  /**
   * Queues a status write, folded into one already queued (it writes what is known when it runs),
   * and held while networks the last reconcile told have not reported. Unfolded, every network
   * run's end queued a write, and while the API server hung each took the client's whole timeout,
   * so the writes queued up ahead of the reconciles.
   */
  private void statusWanted() {
    if (pending.writable() && !statusQueued) {
      statusQueued = true;
      loop.execute(
          timed(
              () -> {
                statusQueued = false;
                publish();
              }));
    }
  }

  /** A reconcile or a status write, whose beginning and end liveness follows. */
  private Runnable timed(Runnable work) {
    return () -> {
      liveness.nodeTaskBegan();
      try {
        work.run();
      } finally {
        liveness.nodeTaskEnded();
      }
    };
  }

  /** What the last completed reconcile found and did, null before the first. */
  public NodeSync.Result lastResult() {
    Reconciled last = lastReconcile;
    return last == null ? null : last.result();
  }

  /**
   * One pass: observe (the CniNode to act on), then the node's files made to match its spec ({@link
   * NodeSync}: binaries, then conflists, each planned from what is on disk and applied), then the
   * report (metrics, Events, the networks' runs, the status write once they answered).
   */
  private void reconcile() {
    reconcileQueued = false;
    Optional<CniNode> observed = observe();
    if (observed.isEmpty()) {
      return;
    }
    CniNode seen = observed.get();
    try {
      List<String> unknown = KnownFields.unknownFields(seen.getSpec(), "spec");
      if (!unknown.isEmpty()) {
        refuse(unknown);
        return;
      }
      resumeIfRefused();
      // Before the files: a network whose content is about to change is tainted for the scheduler
      // before its new file is there, and untainted once the status says it is proven.
      devicesSpec = seen.getSpec();
      publishDevices();
      List<ManagedNetwork> current = reader.networks(seen.getSpec());
      NodeSync.Result result = sync.sync(current, reader.plugins(seen.getSpec()));
      // After the pass: it makes Multus's directory for the first file there.
      confDirWatch.active(holdsFileIn(current, ConfigDirectory.Runtime));
      multusDirWatch.active(holdsFileIn(current, ConfigDirectory.Multus));
      if (lookAgainSoon(result)) {
        return;
      }
      report(seen, current, result);
      metrics.nodePass(NodePass.OK);
    } catch (RuntimeException | java.io.IOException e) {
      LOG.error("event=pass-failed node={} error=\"{}\"", api.nodeName(), e.toString(), e);
      metrics.nodePass(NodePass.ERROR);
    }
  }

  /**
   * Whether the pass left something for a moment's state of a file (another product's, being
   * written: {@code cp} truncates, then writes) and is run again in a moment, unreported, rather
   * than report the network failed for the length of a write. At most {@link #QUICK_LOOKS} times in
   * a row; the last is reported whatever it found.
   */
  private boolean lookAgainSoon(NodeSync.Result result) {
    if (!result.passing() || quickLooks >= QUICK_LOOKS) {
      quickLooks = 0;
      return false;
    }
    quickLooks++;
    try {
      loop.schedule(this::reconcileWanted, QUICK_LOOK_DELAY.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopping) {
      // the agent is stopping
    }
    return true;
  }

  /**
   * The CniNode a pass acts on: the one the watch delivered, or read now when the resync or a
   * directory change asked for a read. Empty, with the pass counted as skipped, while the API
   * server is unreachable or the CniNode is missing: nothing on disk changes then.
   */
  private Optional<CniNode> observe() {
    boolean read = readWanted || (delivered == null && !deleted);
    readWanted = false;
    Optional<CniNode> node = Optional.ofNullable(delivered);
    if (read) {
      try {
        node = api.fetch();
        node.ifPresent(n -> known = KnownStatus.read(n));
      } catch (KubernetesClientException e) {
        LOG.warn(
            "event=pass-skipped node={} reason=api-unreachable error=\"{}\"",
            api.nodeName(),
            e.getMessage());
        metrics.nodePass(NodePass.API_UNREACHABLE);
        return Optional.empty();
      }
    }
    if (node.isEmpty()) {
      LOG.info("event=pass-skipped node={} reason=cninode-missing", api.nodeName());
      metrics.nodePass(NodePass.CNINODE_MISSING);
      return Optional.empty();
    }
    if (known == null || !known.uid().equals(node.get().getMetadata().getUid())) {
      known = KnownStatus.read(node.get());
    }
    return node;
  }

  private void resumeIfRefused() {
    if (!refused.isEmpty()) {
      LOG.info("event=pass-resumed node={} reason=unknown-fields-gone", api.nodeName());
      refused = List.of();
    }
  }

  /**
   * What a pass did, told: metrics, the Events of unparsable and contested files, and the networks
   * whose conflist it applied, asked for a run; the status is written once they have reported.
   */
  private void report(CniNode seen, List<ManagedNetwork> current, NodeSync.Result result) {
    long reconcile = pending.reconciled(result.removedNetworks());
    lastReconcile =
        new Reconciled(result.withRemoved(pending.removed()), seen.getMetadata().getGeneration());
    record(result);
    String uid = seen.getMetadata().getUid();
    unparsable.update(
        result.unparsableFiles(), (reason, message) -> events.warnCniNode(uid, reason, message));
    tellContested(result, uid);
    Set<String> asked =
        networks.applied(reconcile, current, applied(current, result), probeReports(seen));
    if (pending.asked(reconcile, asked)) {
      loop.schedule(() -> reportsLate(reconcile), REPORT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } else if (pending.writable()) {
      publish();
    }
  }

  /**
   * A spec written by a newer operator (a rollback of the agent before the operator, or a
   * downgrade): acting on the part understood could write or delete what the spec's author did not
   * mean, so the pass changes nothing on the node and the status names the fields.
   */
  private void refuse(List<String> unknown) {
    if (!unknown.equals(refused)) {
      // Once per set of fields: the status says it all the while, and passes come every resync.
      LOG.warn(
          "event=pass-skipped node={} reason=unknown-fields fields={}", api.nodeName(), unknown);
    }
    refused = unknown;
    metrics.nodePass(NodePass.UNKNOWN_FIELDS);
    publish();
  }

  /**
   * The safety net: the wait {@code reconcile} began ends, and the status is written without the
   * late reports.
   */
  private void reportsLate(long reconcile) {
    Set<String> late = pending.late(reconcile);
    if (!late.isEmpty()) {
      LOG.info(
          "event=status-without-reports node={} networks={} waited={}",
          api.nodeName(),
          late,
          REPORT_WAIT);
      statusWanted();
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

  /** Whether one of the node's networks has its file, or its entries, in {@code directory}. */
  private static boolean holdsFileIn(List<ManagedNetwork> networks, ConfigDirectory directory) {
    return networks.stream().anyMatch(n -> n.directory() == directory);
  }

  /** What a reconcile did, and the spec generation it did it for. */
  private record Reconciled(NodeSync.Result result, Long generation) {}

  /**
   * Only networks whose file on disk is the agent's get CHECK and cleanup: a Conflict means the
   * file, and so whatever network it names, belongs to someone else.
   */
  private static List<ManagedNetwork> applied(List<ManagedNetwork> all, NodeSync.Result result) {
    Set<String> ok = new HashSet<>();
    result.networks().stream()
        .filter(o -> o.state() == NetworkState.Applied)
        .forEach(o -> ok.add(o.network()));
    return all.stream()
        .filter(n -> ok.contains(n.name()))
        .map(n -> runningAs(n, result.chains().get(n.name())))
        .toList();
  }

  /**
   * A network whose plugins run in a chain with other products' (appended to another product's
   * file, or with another installer's appended to its own): as the runtime runs it, the chain of
   * that file; as declared when there is none or it cannot be parsed as a conflist.
   */
  private static ManagedNetwork runningAs(ManagedNetwork n, byte[] file) {
    if (file == null) {
      return n;
    }
    try {
      return n.runningAs(
          NetworkConfigList.parse(
              file, n.appended() ? n.conflist().appendTo() : n.conflist().fileName()));
    } catch (CniException e) {
      LOG.warn(
          "event=chain-unparsable network={} target={} error=\"{}\"",
          n.name(),
          n.conflist().appendTo(),
          e.getMessage());
      return n;
    }
  }

  private void record(NodeSync.Result result) {
    // Removed is said of a network in the CniNode status only, never of one a pass holds.
    for (NetworkState s : EnumSet.complementOf(EnumSet.of(NetworkState.Removed))) {
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

  /**
   * A Warning Event on the CniNode for each network that became Contested in this pass: once per
   * contest, not once per pass (the status says it all the while).
   */
  private void tellContested(NodeSync.Result result, String uid) {
    Set<String> now = new HashSet<>();
    for (NetworkOutcome o : result.networks()) {
      if (o.state() == NetworkState.Contested) {
        now.add(o.network());
        if (!contested.contains(o.network())) {
          events.warnCniNode(uid, EventReason.FILE_CONTESTED, o.network() + ": " + o.message());
        }
      }
    }
    contested = now;
  }

  /**
   * Writes the status when it differs from the one the API server holds: what the last reconcile
   * did, or, while the spec is refused, that it is.
   */
  private void publish() {
    Reconciled last = lastReconcile;
    KnownStatus current = known;
    if (current == null || deleted || (last == null && refused.isEmpty())) {
      return;
    }
    // The generation the reconcile applied, not the newest seen: a newer spec is not yet observed.
    CniNodeStatus status =
        refused.isEmpty()
            ? statusBuilder.build(
                last.result(), networks::health, current.status(), last.generation())
            : statusBuilder.refused(current.status(), refused);
    try {
      if (api.publishStatus(current.status(), status)) {
        known = new KnownStatus(current.uid(), status);
      }
      pending.written();
      statusRetry = null;
    } catch (KubernetesClientException e) {
      retryStatusLater(e);
    }
    publishDevices();
  }

  /**
   * The node's devices made to match its CniNode: the spec the last pass acted on, judged by the
   * status the API server holds (so the scheduler is never told more than the status says). Not
   * while the spec is refused: the devices stay as they were, as the files do. None once the
   * CniNode is deleted.
   */
  private void publishDevices() {
    if (slice == null || !refused.isEmpty()) {
      return;
    }
    if (deleted) {
      slice.publish(List.of());
      return;
    }
    KnownStatus current = known;
    if (devicesSpec == null || current == null) {
      return;
    }
    List<Device> devices = NodeDevices.of(devicesSpec, current.status(), this::claimableAddresses);
    slice.publish(devices);
    Map<String, Device> byName = new HashMap<>();
    devices.forEach(d -> byName.put(d.getName(), d));
    publishedDevices = byName;
    if (!devices.isEmpty() && !devicesRefusalTold && slice.refusal().isPresent()) {
      // Once per agent: the log says it at every pass that has devices to publish.
      devicesRefusalTold = true;
      events.warnCniNode(current.uid(), EventReason.DEVICES_NOT_PUBLISHED, slice.refusal().get());
    }
  }

  /** The device this node publishes under {@code name} now, null when none. */
  public Device publishedDevice(String name) {
    return publishedDevices.get(name);
  }

  private OptionalLong claimableAddresses(String network) {
    Long claimable = networks.health(network).claimableAddresses();
    return claimable == null ? OptionalLong.empty() : OptionalLong.of(claimable);
  }

  /** The slice changed on the API server: made to match again, from what is known now. */
  private void devicesChangedByOthers() {
    onLoop(this::publishDevices);
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
          timed(
              () -> {
                retryPending = false;
                publish();
              }),
          wait.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The node loop's thread. Delayed work (a held status write, a retry) is dropped at shutdown
   * rather than waited for: a stopping agent writes nothing more.
   */
  private static ScheduledExecutorService nodeLoop() {
    ScheduledThreadPoolExecutor pool =
        new ScheduledThreadPoolExecutor(1, r -> new Thread(r, "node-loop"));
    pool.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    return pool;
  }

  /** A status of the CniNode with this uid (another object of the same name starts afresh). */
  private record KnownStatus(String uid, CniNodeStatus status) {
    static KnownStatus read(CniNode node) {
      return new KnownStatus(node.getMetadata().getUid(), node.getStatus());
    }
  }

  /** Stops watching and finishes the reconcile under way; the node's files stay as they are. */
  @Override
  public void close() throws InterruptedException {
    if (slice != null) {
      slice.close();
    }
    confDirWatch.close();
    multusDirWatch.close();
    if (informer != null) {
      informer.close();
    }
    loop.shutdown();
    loop.awaitTermination(30, TimeUnit.SECONDS);
    LOG.info("event=agent-stopped node={}", api.nodeName());
  }
}
