package dev.cnioperator.agent.probe;

import dev.cnioperator.agent.network.CachedConfig;
import dev.cnioperator.agent.network.HostLocalReservations;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.network.Reservation;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.exec.PluginException;
import dev.cnioperator.cni.runtime.CniRuntime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves the content of a network the agent just applied: STATUS (1.1.0), a probe attachment in a
 * namespace of its own (ADD, CHECK, DEL; unless the network turns the probe off), and a CHECK of
 * the live attachments before and after, so that none that was healthy turns unhealthy. One probe
 * at a time per node; each starts by sweeping what a killed probe of the network left behind.
 */
public final class RevisionProbe {
  private static final Logger LOG = LoggerFactory.getLogger(RevisionProbe.class);
  private static final int MAX_MESSAGE = 1024;

  private final CniRuntime runtime;
  private final HostLocalReservations hostLocal;
  private final ProbeNamespaces namespaces;
  private final ProbeIdentity identity;
  private final Clock clock;
  private final ProbeDiagnosis diagnosis;
  private final Function<NetworkConfigList, Optional<String>> runtimeRefuses;

  /**
   * @param runtime the agent's own runtime: a probe's attachment is cached in its cache, whichever
   *     directory the network's file is in, and swept from there
   * @param diagnosis says what to do about a failure whose cause it knows; its advice comes first
   *     in the report
   * @param runtimeRefuses why the node's container runtime cannot ADD a network, where it is known
   *     that it cannot (the probe's own ADD would pass and prove nothing); asked only of networks
   *     of the runtime's directory
   */
  public RevisionProbe(
      CniRuntime runtime,
      HostLocalReservations hostLocal,
      ProbeNamespaces namespaces,
      ProbeIdentity identity,
      Clock clock,
      ProbeDiagnosis diagnosis,
      Function<NetworkConfigList, Optional<String>> runtimeRefuses) {
    this.diagnosis = diagnosis;
    this.runtimeRefuses = runtimeRefuses;
    this.runtime = runtime;
    this.hostLocal = hostLocal;
    this.namespaces = namespaces;
    this.identity = identity;
    this.clock = clock;
  }

  /** A CHECK pass over the network's live attachments, as the CHECK loop runs it. */
  @FunctionalInterface
  public interface LiveCheck {
    AttachmentSummary check(ManagedNetwork network) throws InterruptedException;
  }

  /** A step of the probe that failed, with the words for the status. */
  private static final class Failure extends Exception {
    private static final long serialVersionUID = 1L;

    Failure(String message) {
      super(message);
    }
  }

  /**
   * Proves {@code network}'s applied content (its list must be valid). A failure must happen twice
   * in a row to count: a failed report rolls the revision back on every node that took it, and some
   * failures are races with the node's own churn rather than the content's fault (a Linux bridge
   * takes the lowest MAC of its ports, so a pod's veth added between the probe's ADD and CHECK
   * fails the bridge plugin's CHECK of the bridge's MAC).
   *
   * @param live the CHECK of the network's live attachments, run before and after the probe
   */
  public synchronized ProbeReport prove(ManagedNetwork network, LiveCheck live)
      throws InterruptedException {
    String sha = network.conflist().sha256();
    Optional<Failure> first = attempt(network, sha, live);
    Optional<Failure> failure = first;
    if (first.isPresent()) {
      LOG.info(
          "event=probe-retry network={} sha256={} error=\"{}\"",
          network.name(),
          sha,
          first.get().getMessage());
      failure = attempt(network, sha, live);
    }
    if (failure.isPresent()) {
      String error = failure.get().getMessage();
      Optional<String> advice = diagnosis.advise(network.list(), error);
      LOG.warn(
          "event=probe-failed network={} sha256={} error=\"{}\" advice=\"{}\"",
          network.name(),
          sha,
          error,
          advice.orElse(""));
      // The advice first: the report's message is cut at MAX_MESSAGE, and a long plugin error must
      // not cut off what to do about it.
      return report(
          sha, ProbeResult.Failed, advice.map(a -> a + ". Probe: " + error).orElse(error));
    }
    LOG.info(
        "event=probe-passed network={} sha256={} proof={} attempts={}",
        network.name(),
        sha,
        network.proof(),
        first.isPresent() ? 2 : 1);
    return report(sha, ProbeResult.Passed, null);
  }

  /** One whole probe: sweep, STATUS, CHECK before, the probe attachment, CHECK after. */
  private Optional<Failure> attempt(ManagedNetwork network, String sha, LiveCheck live)
      throws InterruptedException {
    NetworkConfigList list = network.list();
    try {
      sweep(network);
      // The container runtime's libcni never runs a Multus network: Multus does, with its own.
      Optional<String> refused =
          network.directory() == ConfigDirectory.Runtime
              ? runtimeRefuses.apply(list)
              : Optional.empty();
      if (refused.isPresent()) {
        throw new Failure("runtime: " + refused.get());
      }
      if (list.cniVersion().supportsGcAndStatus()) {
        step("STATUS", ownTypes(network), () -> runtime.getStatusNetworkList(list));
      }
      AttachmentSummary before = network.checkable() ? live.check(network) : null;
      if (network.proof() == ManagedNetwork.Proof.ATTACHMENT) {
        attach(list, identity.containerId(sha), ownTypes(network));
      }
      if (before != null) {
        noneTurnedUnhealthy(before, live.check(network));
      }
      return Optional.empty();
    } catch (Failure f) {
      return Optional.of(f);
    }
  }

  /**
   * The plugin types of {@code network}'s own declaration: any other plugin in the chain it runs is
   * another product's (another installer appended it, or the network is appended to that product's
   * file), and a probe that fails in it says so.
   */
  private static Set<String> ownTypes(ManagedNetwork network) {
    return Set.copyOf(network.plugins().types());
  }

  private void attach(NetworkConfigList list, String id, Set<String> own) throws Failure {
    Path netns;
    try {
      netns = namespaces.create(id);
    } catch (IOException e) {
      throw new Failure("probe network namespace: " + e.getMessage());
    }
    Attachment probe =
        new Attachment(
            id,
            netns.toString(),
            ProbeIdentity.IF_NAME,
            List.of(new CniArg("IgnoreUnknown", "1")),
            Map.of());
    Failure failure = null;
    try {
      step("ADD", own, () -> runtime.addNetworkList(list, probe));
      if (list.cniVersion().supportsCheck() && !list.disableCheck()) {
        step("CHECK", own, () -> runtime.checkNetworkList(list, probe));
      }
    } catch (Failure f) {
      failure = f;
    }
    // DEL even after a failed ADD: a plugin may have reserved or created something before failing.
    try {
      step("DEL", own, () -> runtime.delNetworkList(list, probe));
    } catch (Failure f) {
      failure = failure == null ? f : failure;
    }
    try {
      namespaces.delete(id);
    } catch (IOException e) {
      failure =
          failure == null ? new Failure("probe network namespace: " + e.getMessage()) : failure;
    }
    if (failure != null) {
      throw failure;
    }
  }

  private static void noneTurnedUnhealthy(AttachmentSummary before, AttachmentSummary after)
      throws Failure {
    Set<String> failingBefore = new HashSet<>();
    before.getFailing().forEach(f -> failingBefore.add(key(f)));
    Optional<FailingAttachment> turned =
        after.getFailing().stream().filter(f -> !failingBefore.contains(key(f))).findFirst();
    if (turned.isPresent()) {
      FailingAttachment f = turned.get();
      String pod = f.getPod() == null ? "" : " (pod " + f.getNamespace() + "/" + f.getPod() + ")";
      throw new Failure(
          "live attachment "
              + f.getContainerId()
              + "/"
              + f.getIfName()
              + pod
              + " healthy before fails CHECK after the change: "
              + f.getError());
    }
  }

  /**
   * Removes what a killed probe of {@code network} left: cached probe attachments and host-local
   * reservations of this node's probe ids (DEL), then this node's probe namespaces.
   */
  public synchronized void sweep(ManagedNetwork network) {
    NetworkConfigList list = network.list();
    Set<String> deleted = new HashSet<>();
    List<CachedAttachment> entries = runtime.cache().list(list.name());
    // Read before the DELs below: a cached config may be the only one naming an older store.
    HostLocalReservations.Reading stores = hostLocal.read(network, entries);
    for (CachedAttachment entry : entries) {
      if (identity.isOwn(entry.containerId())) {
        NetworkConfigList cached = CachedConfig.of(network, entry).orElse(list);
        delLeftover(network, cached, entry.containerId(), entry.ifName());
        deleted.add(entry.containerId() + "/" + entry.ifName());
      }
    }
    if (!stores.complete()) {
      LOG.warn(
          "event=probe-sweep-incomplete network={} reason=\"{}\"",
          network.name(),
          stores.message());
    }
    try {
      for (Reservation r : stores.reservations()) {
        if (identity.isOwn(r.containerId()) && deleted.add(r.containerId() + "/" + r.ifName())) {
          delLeftover(network, stores.configs().get(r.store()), r.containerId(), r.ifName());
        }
      }
      for (String name : namespaces.owned(identity)) {
        namespaces.delete(name);
        LOG.info("event=probe-leftover-removed network={} netns={}", network.name(), name);
      }
    } catch (IOException e) {
      LOG.warn("event=probe-sweep-failed network={} error=\"{}\"", network.name(), e.getMessage());
    }
  }

  private void delLeftover(
      ManagedNetwork network, NetworkConfigList list, String containerId, String ifName) {
    Path netns = ProbeNamespaces.RUN_DIR.resolve(containerId);
    String path = Files.exists(netns) ? netns.toString() : "";
    try {
      runtime.delNetworkList(list, Attachment.of(containerId, path, ifName));
      LOG.info(
          "event=probe-leftover-removed network={} container={} ifName={}",
          network.name(),
          containerId,
          ifName);
    } catch (CniException e) {
      LOG.warn(
          "event=probe-leftover-del-failed network={} container={} error=\"{}\"",
          network.name(),
          containerId,
          e.getMessage());
    }
  }

  private interface Verb {
    void run();
  }

  /**
   * Runs one verb of the probe; a failure in a plugin not among {@code own} (the network's own
   * types) names it as another installer's, so that the user looks there and not at the network.
   */
  private static void step(String verb, Set<String> own, Verb call) throws Failure {
    try {
      call.run();
    } catch (PluginException e) {
      String whose =
          own.contains(e.plugin())
              ? ""
              : "plugin "
                  + e.plugin()
                  + " is not this network's own: another installer's, in the file the runtime"
                  + " runs; ";
      throw new Failure(verb + ": " + whose + e.getMessage());
    } catch (CniException e) {
      throw new Failure(verb + ": " + e.getMessage());
    }
  }

  private ProbeReport report(String sha, ProbeResult result, String message) {
    String text =
        message == null || message.length() <= MAX_MESSAGE
            ? message
            : message.substring(0, MAX_MESSAGE) + "...";
    return new ProbeReport()
        .setSha256(sha)
        .setResult(result)
        .setMessage(text)
        .setTime(clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
  }

  private static String key(FailingAttachment f) {
    return f.getContainerId() + "/" + f.getIfName();
  }
}
