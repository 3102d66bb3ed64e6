package dev.cnioperator.agent.cleanup;

import dev.cnioperator.agent.cleanup.StaleAttachmentFinder.Limits;
import dev.cnioperator.agent.cleanup.StaleAttachmentFinder.Observation;
import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.CachedConfig;
import dev.cnioperator.agent.network.HostLocalCapacity;
import dev.cnioperator.agent.network.HostLocalReservations;
import dev.cnioperator.agent.network.HostLocalReservations.Reading;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.network.PodRef;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.network.Reservation;
import dev.cnioperator.agent.observe.NetworkMetrics;
import dev.cnioperator.agent.observe.NetworkMetrics.CleanupOutcome;
import dev.cnioperator.api.v1alpha1.IpamSummary;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases stale IPAM reservations of a network: reads the source of truth fresh (pods on this
 * node, network namespaces), asks {@link StaleAttachmentFinder}, then DELs what is due through the
 * whole chain (or only reports, with dryRun). No source of truth, no cleanup.
 *
 * <p>Never GC, even on 1.1.0 networks. GC's valid attachments are an allow-list (libcni first DELs
 * every cached attachment missing from it), and SPEC 1.1.0 lets only a caller that holds off every
 * ADD and DEL of the network send it ("The runtime must ensure that no add or delete operations are
 * in progress before executing gc"). The agent is not the runtime and cannot hold off its ADDs: a
 * pod's attachment added between the agent's read of the cache and the GC would be DELed live. It
 * happened in {@code StaleCleanupIT} while GC was sent here. What the agent knows to be stale it
 * releases by DEL, under the grace period and the brake.
 */
public final class StaleAttachmentCleaner {
  private static final Logger LOG = LoggerFactory.getLogger(StaleAttachmentCleaner.class);

  private final AttachmentRuntimes runtimes;
  private final HostLocalReservations hostLocal;
  private final SourceOfTruth source;
  private final Path netnsDir;
  private final Clock clock;
  private final ExecutorService workers;
  private final StaleAttachmentFinder finder = new StaleAttachmentFinder();
  private final Function<String, Set<String>> podsClaiming;

  /**
   * @param runtimes the runtime each network's attachments are cached by, which DELs them
   */
  public StaleAttachmentCleaner(
      AttachmentRuntimes runtimes,
      HostLocalReservations hostLocal,
      SourceOfTruth source,
      Path netnsDir,
      Clock clock,
      ExecutorService workers,
      Function<String, Set<String>> podsClaiming) {
    this.workers = workers;
    this.podsClaiming = podsClaiming;
    this.runtimes = runtimes;
    this.hostLocal = hostLocal;
    this.source = source;
    this.netnsDir = netnsDir;
    this.clock = clock;
  }

  /**
   * What one pass found; {@code message} says why nothing ran or what the brake stopped; {@code
   * claimableAddresses} the addresses pods that claim the network may take ({@link
   * #claimableAddresses}), null when unknown.
   */
  public record Report(IpamSummary summary, String message, Long claimableAddresses) {
    static Report notRun(String message) {
      return new Report(null, message, null);
    }
  }

  /**
   * One cleanup pass over {@code network}: its cache entries and host-local reservations, then the
   * source of truth, then the decision and the DELs.
   *
   * @param history what earlier passes over this network found and released; updated by this one
   * @param metrics the network's series, which get how the pass ended and what it released
   */
  public Report clean(ManagedNetwork network, CleanupHistory history, NetworkMetrics metrics)
      throws InterruptedException {
    String name = network.name();
    CleanupSettings settings = network.cleanup();
    if (!netnsDirReadable()) {
      LOG.warn(
          "event=cleanup-skipped network={} reason=netns-dir-unreadable dir={}", name, netnsDir);
      metrics.cleanupPass(CleanupOutcome.SKIPPED, 0, 0);
      return Report.notRun(
          "no cleanup: network namespace directory " + netnsDir + " cannot be read");
    }
    // libcni keys its cache by the conflist's own name, which may differ from the CniNetwork's.
    // A probe's attachment and reservation are the probe's to remove (RevisionProbe sweeps them),
    // never a pod's: neither stale nor counted.
    List<AttachmentRuntimes.Cached> all = runtimes.cached(network);
    Map<String, AttachmentRuntimes.Cached> byKey = new HashMap<>();
    List<CachedRef> cached = new ArrayList<>();
    for (AttachmentRuntimes.Cached c : all) {
      CachedAttachment e = c.entry();
      if (ProbeIdentity.isProbe(e.containerId())) {
        continue;
      }
      PodRef pod = PodRef.of(e.cniArgs());
      CachedRef ref =
          new CachedRef(
              e.containerId(), e.ifName(), e.netns(), pod.namespace(), pod.name(), pod.uid());
      cached.add(ref);
      byKey.put(ref.key(), c);
    }
    Reading stores = hostLocal.read(network, entries(all));
    if (!stores.complete()) {
      LOG.warn(
          "event=host-local-store-unreadable network={} reason=\"{}\"", name, stores.message());
    }
    List<Reservation> reservations =
        stores.reservations().stream()
            .filter(r -> !ProbeIdentity.isProbe(r.containerId()))
            .toList();
    // The source of truth after the node's stores: a pod is created before its sandbox's ADD, so
    // every attachment read above has its pod in this read. Read the other way round, an attachment
    // added in between would pass for stale (its pod missing from an older read).
    LivePods live;
    try {
      live = source.read();
    } catch (SourceOfTruth.Unavailable e) {
      LOG.warn(
          "event=cleanup-skipped network={} reason=source-of-truth-unreadable source={} error=\"{}\"",
          name,
          source.name(),
          e.getMessage());
      metrics.cleanupPass(CleanupOutcome.SKIPPED, 0, 0);
      return Report.notRun("no cleanup: " + e.getMessage());
    }
    StaleDecision d =
        finder.find(
            new Observation(
                cached,
                reservations,
                live,
                path -> Files.exists(Path.of(path)),
                history.marks(),
                history.recentReleases(Instant.now(clock)),
                Instant.now(clock)),
            new Limits(settings.gracePeriod(), settings.maxDeleteFraction()));
    history.marks(d.marks());
    String message = d.message();
    int released = 0;
    Reading left = stores;
    if (d.braked()) {
      LOG.warn("event=cleanup-braked network={} message=\"{}\"", name, d.message());
    } else if (settings.dryRun()) {
      if (d.deletions() > 0) {
        message = "dryRun: " + d.deletions() + " stale reservations would be released";
        LOG.info(
            "event=cleanup-dry-run network={} due={} stale={}", name, d.deletions(), d.stale());
      }
    } else {
      List<String> unusable = new ArrayList<>();
      released = release(network, d, byKey, stores, unusable, history);
      left = hostLocal.read(network, entries(runtimes.cached(network)));
      if (!unusable.isEmpty()) {
        message =
            join(
                message,
                "not released, "
                    + CachedConfig.unusable(unusable.size())
                    + ": "
                    + String.join(", ", unusable));
      }
    }
    int total = history.released(released, Instant.now(clock));
    metrics.cleanupPass(
        d.braked() ? CleanupOutcome.BRAKED : CleanupOutcome.COMPLETED,
        d.stale() - released,
        released);
    LOG.info(
        "event=cleanup-pass network={} stale={} released={} braked={}",
        name,
        d.stale(),
        released,
        d.braked());
    return new Report(
        new IpamSummary()
            // A store that cannot be read leaves the count unknown, not smaller.
            .setReservations(left.complete() ? left.reservations().size() : null)
            .setStale(d.stale() - released)
            .setReclaimed(total),
        join(message, stores.message()),
        claimableAddresses(network, left, cached));
  }

  /**
   * The addresses pods that claim the network may take on the node, as the scheduler counts them:
   * host-local's free ones (its current configuration's ranges less the reservations in its current
   * store, a probe's among them while it holds one), plus those held by pods whose claim on the
   * network the kubelet prepared here ({@link dev.cnioperator.agent.dra.PreparedClaims}): the
   * scheduler counts those pods' claims against the capacity itself. Null when no plugin of the
   * network uses host-local, its store could not be read, or its ranges cannot be sized ({@link
   * HostLocalCapacity}).
   */
  private Long claimableAddresses(ManagedNetwork network, Reading left, List<CachedRef> cached) {
    if (network.list() == null || !left.complete()) {
      return null;
    }
    Optional<Path> store = hostLocal.directory(network.list());
    Optional<PluginConfig> plugin =
        network.list().plugins().stream()
            .filter(p -> p.ipamType().filter("host-local"::equals).isPresent())
            .findFirst();
    if (store.isEmpty() || plugin.isEmpty()) {
      return null;
    }
    List<Reservation> reserved =
        left.reservations().stream().filter(r -> r.store().equals(store.get())).toList();
    Optional<HostLocalCapacity.Count> count =
        HostLocalCapacity.of(
            plugin.get().raw().path("ipam"), reserved.stream().map(Reservation::ip).toList());
    if (count.isEmpty()) {
      return null;
    }
    Set<String> claiming = podsClaiming.apply(network.name());
    Map<String, String> podOfContainer = new HashMap<>();
    cached.forEach(c -> podOfContainer.put(c.containerId(), c.podUid()));
    long claimedHeld =
        reserved.stream()
            .filter(r -> claiming.contains(podOfContainer.get(r.containerId())))
            .map(Reservation::ip)
            .distinct()
            .count();
    return Math.min(count.get().usable(), count.get().free() + claimedHeld);
  }

  /**
   * DELs what the decision releases, on the shared plugin workers (as many at once as CHECK runs):
   * the decision is made before, whole, and each DEL is one attachment's own; only the counting and
   * the marks are done here, on the pass's thread. An entry whose cached config cannot be executed
   * is not DELed at all (never with the current config instead): it is added to {@code unusable}.
   * Neither is one whose host-local store cannot be read. A reservation without a cache entry is
   * DELed through a configuration naming its own store, so that host-local releases it there.
   */
  private int release(
      ManagedNetwork network,
      StaleDecision d,
      Map<String, AttachmentRuntimes.Cached> byKey,
      Reading stores,
      List<String> unusable,
      CleanupHistory history)
      throws InterruptedException {
    List<String> keys = new ArrayList<>();
    List<Callable<Boolean>> dels = new ArrayList<>();
    for (CachedRef ref : d.delete()) {
      CniRuntime runtime = byKey.get(ref.key()).runtime();
      CachedAttachment entry = byKey.get(ref.key()).entry();
      Optional<NetworkConfigList> list = CachedConfig.of(network, entry);
      if (list.isEmpty()) {
        unusable.add(entry.containerId() + "/" + entry.ifName());
        continue;
      }
      Optional<Path> store = hostLocal.directory(list.get());
      if (store.isPresent() && stores.unreadable().containsKey(store.get())) {
        LOG.warn(
            "event=stale-release-held network={} container={} ifName={} reason=store-unreadable"
                + " dir={}",
            network.name(),
            entry.containerId(),
            entry.ifName(),
            store.get());
        continue;
      }
      keys.add(ref.key());
      dels.add(
          () ->
              del(
                  network,
                  entry.containerId(),
                  entry.ifName(),
                  () -> runtime.delNetworkList(list.get(), entry.attachment())));
    }
    for (Reservation r : d.release()) {
      keys.add(r.key());
      dels.add(
          () ->
              del(
                  network,
                  r.containerId(),
                  r.ifName(),
                  () ->
                      runtimes
                          .primary(network)
                          .delNetworkList(
                              stores.configs().get(r.store()),
                              Attachment.of(r.containerId(), "", r.ifName()))));
    }
    int released = 0;
    List<Future<Boolean>> results = workers.invokeAll(dels);
    for (int i = 0; i < results.size(); i++) {
      boolean ok;
      try {
        ok = results.get(i).get();
      } catch (ExecutionException e) {
        LOG.warn(
            "event=stale-release-crashed network={} error=\"{}\"",
            network.name(),
            e.getCause().toString());
        ok = false;
      }
      if (ok) {
        released++;
        history.unmark(keys.get(i));
      }
    }
    return released;
  }

  private static boolean del(
      ManagedNetwork network, String containerId, String ifName, Runnable del) {
    try {
      del.run();
      LOG.info(
          "event=stale-released network={} container={} ifName={} verb=DEL",
          network.name(),
          containerId,
          ifName);
      return true;
    } catch (CniException e) {
      LOG.warn(
          "event=stale-release-failed network={} container={} ifName={} error=\"{}\"",
          network.name(),
          containerId,
          ifName,
          e.getMessage());
      return false;
    }
  }

  private static String join(String message, String more) {
    if (message == null || message.isEmpty()) {
      return more;
    }
    return more.isEmpty() ? message : message + "; " + more;
  }

  private boolean netnsDirReadable() {
    if (!Files.isDirectory(netnsDir)) {
      return false;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(netnsDir)) {
      entries.iterator().hasNext();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static List<CachedAttachment> entries(List<AttachmentRuntimes.Cached> cached) {
    return cached.stream().map(AttachmentRuntimes.Cached::entry).toList();
  }
}
