package dev.cnioperator.agent.check;

import dev.cnioperator.agent.kube.AgentEvents;
import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.CachedConfig;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.PodRef;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.network.SandboxNetns;
import dev.cnioperator.agent.observe.NetworkMetrics;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.OlderChainPod;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CHECKs every cached attachment of a network through its whole chain, with the configuration and
 * result it was added with, a bounded number at a time. Reports totals and a capped list of
 * failures; an attachment that starts failing gets an Event on its pod.
 */
public final class AttachmentChecker {
  /** The status lists at most this many failing attachments per network. */
  public static final int FAILING_CAP = 20;

  /** The status names at most this many attachments on an older chain per network. */
  public static final int OLDER_CHAIN_CAP = 10;

  private static final Logger LOG = LoggerFactory.getLogger(AttachmentChecker.class);

  private final AttachmentRuntimes runtimes;
  private final ExecutorService workers;
  private final AgentEvents events;
  private final SandboxNetns sandboxNetns;
  private final Function<ManagedNetwork, byte[]> fileNow;
  private final Predicate<String> heldAsDropIns;

  /**
   * @param runtimes the runtime each network's attachments are cached by, which CHECKs them
   * @param sandboxNetns where to find the netns of an entry that caches none
   * @param fileNow the network's file as it is on disk, null when it cannot be read
   * @param heldAsDropIns whether a network's entries are held as drop-ins now, by network name
   */
  public AttachmentChecker(
      AttachmentRuntimes runtimes,
      ExecutorService workers,
      AgentEvents events,
      SandboxNetns sandboxNetns,
      Function<ManagedNetwork, byte[]> fileNow,
      Predicate<String> heldAsDropIns) {
    this.fileNow = fileNow;
    this.heldAsDropIns = heldAsDropIns;
    this.runtimes = runtimes;
    this.workers = workers;
    this.events = events;
    this.sandboxNetns = sandboxNetns;
  }

  /** What one attachment's CHECK found. */
  private sealed interface Outcome {}

  private record Healthy() implements Outcome {}

  private record Failing(FailingAttachment attachment) implements Outcome {}

  /** Not checked: the agent could not learn its netns; says nothing of its health. */
  private record Unchecked(String containerId, String reason) implements Outcome {}

  /**
   * One CHECK pass over {@code network}'s cached attachments. An attachment whose network namespace
   * the agent cannot learn is counted as unchecked, neither healthy nor failing: a CHECK without a
   * netns fails whatever the pod's state ("CNI_NETNS missing"), and reporting that as a failure
   * would put a Warning on a healthy pod.
   *
   * @param reported the network's failures already announced; a failure not in it gets an Event
   * @param metrics the network's series, which get the pass's counts
   */
  public AttachmentSummary check(
      ManagedNetwork network, ReportedFailures reported, NetworkMetrics metrics)
      throws InterruptedException {
    // libcni keys its cache by the conflist's own name, which may differ from the CniNetwork's.
    // A probe's attachment is the agent's own, never a pod's (RevisionProbe runs its CHECK).
    List<AttachmentRuntimes.Cached> entries =
        runtimes.cached(network).stream()
            .filter(c -> !ProbeIdentity.isProbe(c.entry().containerId()))
            .toList();
    boolean droppedIn = network.appended() && heldAsDropIns.test(network.name());
    String notOurs = notOurs(network, droppedIn);
    List<Callable<Outcome>> tasks = new ArrayList<>();
    for (AttachmentRuntimes.Cached c : entries) {
      tasks.add(
          network.checkable()
              ? () -> checkOne(c.runtime(), network, c.entry())
              : () -> new Unchecked(c.entry().containerId(), notOurs));
    }
    List<FailingAttachment> failing = new ArrayList<>();
    List<Unchecked> unchecked = new ArrayList<>();
    int healthy = 0;
    for (Future<Outcome> f : workers.invokeAll(tasks)) {
      try {
        Outcome outcome = f.get();
        if (outcome instanceof Failing fa) {
          failing.add(fa.attachment());
        } else if (outcome instanceof Unchecked u) {
          unchecked.add(u);
        } else {
          healthy++;
        }
      } catch (ExecutionException e) {
        LOG.warn(
            "event=check-crashed network={} error=\"{}\"", network.name(), e.getCause().toString());
      }
    }
    failing.sort(
        Comparator.comparing(FailingAttachment::getContainerId)
            .thenComparing(FailingAttachment::getIfName));
    announceNewFailures(network.name(), failing, reported);
    // libcni caches a network's file with each attachment, never its drop-ins: with the entries
    // held as drop-ins, the cache cannot tell which chain a pod was added with.
    List<OlderChainPod> older = droppedIn ? List.of() : olderChains(network, entries);
    metrics.checkPass(healthy, failing.size(), unchecked.size(), older.size());
    LOG.info(
        "event=check-pass network={} total={} healthy={} failing={} unchecked={}",
        network.name(),
        entries.size(),
        healthy,
        failing.size(),
        unchecked.size());
    return new AttachmentSummary()
        .setTotal(entries.size())
        .setHealthy(healthy)
        .setUnchecked(unchecked.isEmpty() ? null : unchecked.size())
        .setUncheckedReason(uncheckedReason(unchecked))
        .setOlderChain(older.isEmpty() ? null : older.size())
        .setOlderChainPods(
            older.isEmpty()
                ? null
                : List.copyOf(older.subList(0, Math.min(OLDER_CHAIN_CAP, older.size()))))
        .setFailing(List.copyOf(failing.subList(0, Math.min(FAILING_CAP, failing.size()))));
  }

  /**
   * The attachments that run another chain than the network's file holds now, by namespace and pod:
   * an older revision, or the chain before another installer appended a plugin.
   */
  private List<OlderChainPod> olderChains(
      ManagedNetwork network, List<AttachmentRuntimes.Cached> entries) {
    AttachmentChain.Judge chains =
        network.appended()
            ? AttachmentChain.Judge.declared(network.conflist().content())
            : AttachmentChain.Judge.revision(network.conflist().content(), fileNow.apply(network));
    List<OlderChainPod> older = new ArrayList<>();
    for (AttachmentRuntimes.Cached c : entries) {
      String why = chains.of(c.entry().config()).why();
      if (why != null) {
        PodRef pod = PodRef.of(c.entry().cniArgs());
        older.add(new OlderChainPod().setNamespace(pod.namespace()).setPod(pod.name()).setWhy(why));
      }
    }
    older.sort(
        Comparator.comparing(OlderChainPod::getNamespace, Comparator.nullsLast(String::compareTo))
            .thenComparing(OlderChainPod::getPod, Comparator.nullsLast(String::compareTo)));
    return older;
  }

  /**
   * Why the attachments of a network appended to another product's are counted, by chain, and not
   * CHECKed: they are that product's pods, whose plugins the agent does not know to report truly.
   */
  private static String notOurs(ManagedNetwork network, boolean droppedIn) {
    return "pods of network "
        + network.conflist().appendTo()
        + ", which another product owns: "
        + (droppedIn
            ? "counted, not CHECKed; which chain each was added with is not known, as libcni"
                + " caches the network's file without its drop-ins"
            : "counted by chain, not CHECKed");
  }

  /**
   * One reason for the status: the first attachment's (by container id, so that the same pass gives
   * the same words), with how many share it.
   */
  private static String uncheckedReason(List<Unchecked> unchecked) {
    if (unchecked.isEmpty()) {
      return null;
    }
    Unchecked first =
        unchecked.stream().min(Comparator.comparing(Unchecked::containerId)).orElseThrow();
    long same = unchecked.stream().filter(u -> u.reason().equals(first.reason())).count();
    String others =
        same == unchecked.size() ? "" : " (" + (unchecked.size() - same) + " for other reasons)";
    return first.reason() + others;
  }

  private Outcome checkOne(CniRuntime runtime, ManagedNetwork network, CachedAttachment entry) {
    Optional<NetworkConfigList> list = CachedConfig.of(network, entry);
    if (list.isEmpty()) {
      return new Failing(failing(entry, CachedConfig.unusable(entry)));
    }
    SandboxNetns.Answer netns = netns(entry);
    if (netns instanceof SandboxNetns.Unknown unknown) {
      LOG.debug(
          "event=check-skipped network={} container={} ifName={} reason=\"{}\"",
          network.name(),
          entry.containerId(),
          entry.ifName(),
          unknown.reason());
      return new Unchecked(entry.containerId(), unknown.reason());
    }
    String path = ((SandboxNetns.Known) netns).path();
    try {
      runtime.checkNetworkList(list.get(), withNetns(entry.attachment(), path));
      return new Healthy();
    } catch (CniException e) {
      LOG.warn(
          "event=check-failed network={} container={} ifName={} code={} error=\"{}\"",
          network.name(),
          entry.containerId(),
          entry.ifName(),
          e.code(),
          e.getMessage());
      return new Failing(failing(entry, e.getMessage()));
    }
  }

  private static FailingAttachment failing(CachedAttachment entry, String error) {
    PodRef pod = PodRef.of(entry.cniArgs());
    return new FailingAttachment()
        .setPod(pod.name())
        .setNamespace(pod.namespace())
        .setContainerId(entry.containerId())
        .setIfName(entry.ifName())
        .setError(error);
  }

  /** The cached attachment's netns, or the runtime's where the cache has none. */
  private SandboxNetns.Answer netns(CachedAttachment entry) {
    String cached = entry.attachment().netns();
    return cached.isEmpty() ? sandboxNetns.of(entry.containerId()) : new SandboxNetns.Known(cached);
  }

  private static Attachment withNetns(Attachment a, String netns) {
    return netns.equals(a.netns())
        ? a
        : new Attachment(a.containerId(), netns, a.ifName(), a.cniArgs(), a.capabilityArgs());
  }

  private void announceNewFailures(
      String network, List<FailingAttachment> failing, ReportedFailures reported) {
    Set<String> now = new HashSet<>();
    Set<String> before = reported.get();
    for (FailingAttachment f : failing) {
      String key = f.getContainerId() + "/" + f.getIfName();
      now.add(key);
      if (!before.contains(key) && f.getPod() != null && f.getNamespace() != null) {
        events.warnPod(
            f.getNamespace(),
            f.getPod(),
            null,
            EventReason.CNI_CHECK_FAILED,
            "CNI CHECK of network "
                + network
                + " interface "
                + f.getIfName()
                + " failed: "
                + f.getError());
      }
    }
    reported.set(now);
  }
}
