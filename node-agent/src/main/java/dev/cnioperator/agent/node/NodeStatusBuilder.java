package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.plugin.PluginOutcome;
import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.reasons.ConditionStamp;
import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.v1alpha1.AppendedPlugins;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.InstalledPlugin;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodeSummary;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import dev.cnioperator.runtime.text.CappedList;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Builds the CniNode status from a reconcile's result and what the network runs found.
 * Deterministic: the same inputs give an equal status, so the writer can skip writes that would
 * change nothing.
 */
public final class NodeStatusBuilder {
  private final Clock clock;
  private final Supplier<RuntimeNetwork> runtime;
  private final String startTime;

  public NodeStatusBuilder(Clock clock) {
    this(clock, () -> null, null);
  }

  /**
   * @param runtime the runtime's latest word on its network, null when there is none to report
   * @param agentStart when this agent process started, reported as {@code agentStartTime}; null
   *     leaves it out
   */
  public NodeStatusBuilder(Clock clock, Supplier<RuntimeNetwork> runtime, Instant agentStart) {
    this.clock = clock;
    this.runtime = runtime;
    this.startTime =
        agentStart == null ? null : agentStart.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  public CniNodeStatus build(
      NodeSync.Result pass,
      Function<String, NetworkHealth> health,
      CniNodeStatus previous,
      Long generation) {
    Map<String, NodeNetworkStatus> networks = new TreeMap<>();
    for (NetworkOutcome o : pass.networks()) {
      networks.put(o.network(), network(o, health.apply(o.network())));
      networks.get(o.network()).setAppendedPlugins(appended(o, previous));
    }
    carryRemoved(previous, networks, pass.removedNetworks());
    List<NodeNetworkStatus> list = new ArrayList<>(networks.values());
    ConditionStamp stamp = stamp(previous, generation);
    long desired = pass.networks().size();
    long applied = pass.networks().stream().filter(o -> o.state() == NetworkState.Applied).count();
    int failing = 0;
    int unchecked = 0;
    int stale = 0;
    for (NodeNetworkStatus n : list) {
      if (n.getAttachments() != null && n.getAttachments().getFailing() != null) {
        failing += n.getAttachments().getFailing().size();
      }
      if (n.getAttachments() != null && n.getAttachments().getUnchecked() != null) {
        unchecked += n.getAttachments().getUnchecked();
      }
      if (n.getIpam() != null && n.getIpam().getStale() != null) {
        stale += n.getIpam().getStale();
      }
    }
    return new CniNodeStatus()
        .setNetworks(list)
        .setPlugins(plugins(pass.plugins()))
        .setDefaultNetwork(pass.defaultNetwork())
        .setDefaultFile(pass.defaultFile())
        .setRuntime(runtime(previous))
        .setSummary(
            new NodeSummary()
                .setNetworks(applied + "/" + desired)
                .setFailingAttachments(failing)
                .setUncheckedAttachments(unchecked == 0 ? null : unchecked)
                .setStaleReservations(stale))
        .setAgentStartTime(startTime)
        .setObservedGeneration(generation)
        .setConditions(
            List.of(
                ready(applied == desired, pass, list, stamp),
                podNetworkReady(pass, networks, stamp)))
        .setUnparsableFiles(
            pass.unparsableFiles().isEmpty() ? null : List.copyOf(pass.unparsableFiles()));
  }

  /**
   * The status of a pass not made because the spec has fields this agent does not know ({@code
   * unknown}, their paths): what the node reported before, with Ready False and PodNetworkReady
   * Unknown (this agent has proven nothing), both naming the fields, and the generation observed
   * left as it was.
   */
  public CniNodeStatus refused(CniNodeStatus previous, List<String> unknown) {
    CniNodeStatus before = previous == null ? new CniNodeStatus() : previous;
    String fields = CappedList.names(unknown);
    ConditionStamp stamp = stamp(previous, before.getObservedGeneration());
    return new CniNodeStatus()
        .setNetworks(before.getNetworks())
        .setPlugins(before.getPlugins())
        .setDefaultNetwork(before.getDefaultNetwork())
        .setDefaultFile(before.getDefaultFile())
        .setRuntime(runtime(before))
        .setSummary(before.getSummary())
        .setAgentStartTime(startTime)
        .setObservedGeneration(before.getObservedGeneration())
        .setUnparsableFiles(before.getUnparsableFiles())
        .setConditions(
            List.of(
                stamp.set(
                    ConditionType.READY,
                    "False",
                    ConditionReason.UNKNOWN_FIELDS,
                    "the spec has fields this agent does not know, written by a newer operator: "
                        + fields
                        + "; nothing on the node is changed until the operator and the agent are"
                        + " of one version"),
                stamp.set(
                    ConditionType.POD_NETWORK_READY,
                    "Unknown",
                    ConditionReason.UNKNOWN_FIELDS,
                    "not proven by this agent, which does not act on a spec with fields it does"
                        + " not know: "
                        + fields)));
  }

  private static NodeNetworkStatus network(NetworkOutcome o, NetworkHealth h) {
    NodeNetworkStatus s =
        new NodeNetworkStatus()
            .setName(o.network())
            .setAppliedSha256(o.appliedSha256())
            .setState(o.state())
            .setMessage(message(o.message(), h.cleanupMessage()));
    return s.setAttachments(h.attachments())
        .setIpam(h.ipam())
        .setLastCheckTime(h.lastCheckTime())
        .setPluginStatus(h.pluginStatus())
        .setProbe(h.probe());
  }

  /**
   * What others appended to the network's file, keeping {@code since} from the previous status
   * while the types stay the same.
   */
  private AppendedPlugins appended(NetworkOutcome o, CniNodeStatus previous) {
    if (o.appended().isEmpty()) {
      return null;
    }
    List<String> types = o.appended().types();
    String since =
        previousNetwork(previous, o.network())
            .map(NodeNetworkStatus::getAppendedPlugins)
            .filter(a -> types.equals(a.getTypes()) && o.fileName().equals(a.getFileName()))
            .map(AppendedPlugins::getSince)
            .orElseGet(() -> Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString());
    return new AppendedPlugins().setFileName(o.fileName()).setTypes(types).setSince(since);
  }

  private static Optional<NodeNetworkStatus> previousNetwork(CniNodeStatus previous, String name) {
    if (previous == null || previous.getNetworks() == null) {
      return Optional.empty();
    }
    return previous.getNetworks().stream().filter(n -> name.equals(n.getName())).findFirst();
  }

  private static String message(String apply, String cleanup) {
    List<String> parts = new ArrayList<>();
    for (String m : new String[] {apply, cleanup}) {
      if (m != null && !m.isEmpty()) {
        parts.add(m);
      }
    }
    return parts.isEmpty() ? null : String.join("; ", parts);
  }

  /** Networks taken off the node stay reported as Removed until they come back. */
  private static void carryRemoved(
      CniNodeStatus previous, Map<String, NodeNetworkStatus> networks, List<String> removedNow) {
    for (String name : removedNow) {
      networks.putIfAbsent(name, removed(name));
    }
    if (previous == null || previous.getNetworks() == null) {
      return;
    }
    for (NodeNetworkStatus n : previous.getNetworks()) {
      if (n.getState() == NetworkState.Removed) {
        networks.putIfAbsent(n.getName(), removed(n.getName()));
      }
    }
  }

  private static NodeNetworkStatus removed(String name) {
    return new NodeNetworkStatus().setName(name).setState(NetworkState.Removed);
  }

  private static List<InstalledPlugin> plugins(List<PluginOutcome> outcomes) {
    return outcomes.stream()
        .filter(p -> p.sha256() != null)
        .sorted(Comparator.comparing(PluginOutcome::name))
        .map(
            p ->
                new InstalledPlugin()
                    .setName(p.name())
                    .setSha256(p.sha256())
                    .setSupportedVersions(p.supportedVersions())
                    .setOwner(p.owner().name()))
        .toList();
  }

  /** The probe of the content on disk failed (a probe of an earlier content says nothing). */
  private static boolean probeFailed(NodeNetworkStatus n) {
    return n.probeOfContent().equals(Optional.of(ProbeResult.Failed));
  }

  /** The runtime's answer, keeping its lastTransitionTime while networkReady stays the same. */
  private RuntimeNetwork runtime(CniNodeStatus previous) {
    RuntimeNetwork now = runtime.get();
    if (now == null) {
      return null;
    }
    RuntimeNetwork before = previous == null ? null : previous.getRuntime();
    String since =
        before != null && Objects.equals(before.getNetworkReady(), now.getNetworkReady())
            ? before.getLastTransitionTime()
            : Instant.now(clock).truncatedTo(ChronoUnit.SECONDS).toString();
    return new RuntimeNetwork()
        .setEndpoint(now.getEndpoint())
        .setNetworkReady(now.getNetworkReady())
        .setReason(now.getReason())
        .setMessage(now.getMessage())
        .setLoadedNetwork(now.getLoadedNetwork())
        .setLoadedSha256(now.getLoadedSha256())
        .setConfDir(now.getConfDir())
        .setLastTransitionTime(since);
  }

  /**
   * Ready: every network of the spec applied and none whose applied content failed its probe (a
   * node where an attachment cannot be made is not ready for pods). Keeps its lastTransitionTime
   * while its status stays the same.
   */
  private Condition ready(
      boolean allApplied,
      NodeSync.Result pass,
      List<NodeNetworkStatus> networks,
      ConditionStamp stamp) {
    List<String> unproven =
        networks.stream()
            .filter(n -> n.getState() == NetworkState.Applied && probeFailed(n))
            .map(n -> n.getName() + ": " + n.getProbe().getMessage())
            .toList();
    boolean ready = allApplied && unproven.isEmpty();
    ConditionReason reason =
        ready
            ? ConditionReason.ALL_NETWORKS_APPLIED
            : allApplied ? ConditionReason.PROBE_FAILED : ConditionReason.NETWORKS_NOT_APPLIED;
    String message =
        ready
            ? "every network in the spec is applied and proven"
            : allApplied
                ? "no attachment can be made: " + String.join("; ", unproven)
                : "not applied: "
                    + String.join(
                        ", ",
                        pass.networks().stream()
                            .filter(o -> o.state() != NetworkState.Applied)
                            .map(o -> o.network() + " (" + o.state() + ")")
                            .toList());
    return stamp.set(ConditionType.READY, ready, reason, message);
  }

  /**
   * PodNetworkReady: the runtime's pod network is in place with every chain this node's networks
   * declare onto it, each applied and proven at the content on disk. A pod network of another
   * product's with no chain declared onto it is that product's business: true.
   */
  private Condition podNetworkReady(
      NodeSync.Result pass, Map<String, NodeNetworkStatus> networks, ConditionStamp stamp) {
    if (pass.defaultFile() == null) {
      return stamp.set(
          ConditionType.POD_NETWORK_READY,
          false,
          ConditionReason.NO_POD_NETWORK,
          "the runtime's configuration directory holds no network");
    }
    String file = pass.defaultFile().getFileName();
    if (pass.defaultFile().getCopyOf() != null
        && !Boolean.TRUE.equals(pass.defaultFile().getCopyCurrent())) {
      return stamp.set(
          ConditionType.POD_NETWORK_READY,
          false,
          ConditionReason.STALE_COPY,
          Objects.requireNonNullElse(
              pass.defaultFile().getMessage(),
              file
                  + " holds a copy of "
                  + pass.defaultFile().getCopyOf()
                  + " that is not current"));
    }
    List<String> waiting = new ArrayList<>();
    for (String name : pass.podNetworkChain()) {
      NodeNetworkStatus n = networks.get(name);
      if (n == null || n.getState() != NetworkState.Applied) {
        waiting.add(name + " is " + (n == null ? "not reported" : n.getState()));
      } else if (probeFailed(n)) {
        waiting.add(name + " failed its probe: " + n.getProbe().getMessage());
      } else if (n.probeOfContent().isEmpty()) {
        waiting.add(name + " is not proven yet");
      }
    }
    if (!waiting.isEmpty()) {
      return stamp.set(
          ConditionType.POD_NETWORK_READY,
          false,
          ConditionReason.CHAIN_NOT_PROVEN,
          "pod network "
              + pass.defaultNetwork()
              + " in "
              + file
              + ": "
              + String.join("; ", waiting));
    }
    String message =
        pass.podNetworkChain().isEmpty()
            ? "pod network "
                + pass.defaultNetwork()
                + " in "
                + file
                + " is another product's, and no network of this node is appended to it"
            : "pod network "
                + pass.defaultNetwork()
                + " in "
                + file
                + " applied and proven with "
                + String.join(", ", pass.podNetworkChain());
    return stamp.set(
        ConditionType.POD_NETWORK_READY, true, ConditionReason.POD_NETWORK_PROVEN, message);
  }

  private ConditionStamp stamp(CniNodeStatus previous, Long generation) {
    return new ConditionStamp(
        previous == null ? null : previous.getConditions(), generation, Instant.now(clock));
  }
}
