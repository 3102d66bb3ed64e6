package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.text.CappedList;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import dev.cnioperator.operator.multus.AttachmentDefinitions;
import dev.cnioperator.operator.multus.AttachmentReport;
import dev.cnioperator.operator.multus.MultusNamespaces;
import dev.cnioperator.operator.node.CniNodeEventSource;
import dev.cnioperator.operator.node.CniNodeInformer;
import dev.cnioperator.operator.node.CniNodeWriter;
import dev.cnioperator.operator.node.NodeValuesChanged;
import dev.cnioperator.operator.placement.AcceptedRevision;
import dev.cnioperator.operator.placement.NetworkPlacement;
import dev.cnioperator.operator.placement.RevisionIntegrity;
import dev.cnioperator.operator.rollout.NodeRevisionChoice.Placing;
import dev.cnioperator.operator.rollout.RolloutMachine;
import dev.cnioperator.operator.rollout.RolloutOutcome;
import dev.cnioperator.operator.template.NodeConflist;
import dev.cnioperator.operator.template.NodeValues;
import dev.cnioperator.operator.template.RevisionRenderer;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.PrimaryUpdateAndCacheUtils;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.health.Status;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a CniNetwork in phases: observe (caches only), validate and render (keeping the last
 * valid revision), place it on nodes and give each its slice of spec.nodeSlices, fold the agents'
 * reports into status, record Events for transitions, and patch status only when it changed.
 * CniNode specs are written by the NodeReconciler from the revisions and slices published here.
 */
@ControllerConfiguration(
    name = CniNetworkReconciler.NAME,
    fieldManager = CniNodeWriter.FIELD_MANAGER)
public class CniNetworkReconciler implements Reconciler<CniNetwork>, Cleaner<CniNetwork> {
  public static final String NAME = "cninetwork";

  private static final Logger log = LoggerFactory.getLogger(CniNetworkReconciler.class);
  private static final Duration CLEANUP_POLL = Duration.ofSeconds(2);
  private static final Duration NOT_SERVING_RETRY = Duration.ofSeconds(2);

  private final NetworkRenderer renderer;
  private final NetworkStatusFolder folder;
  private final NetworkEvents events;
  private final Duration finalizerTimeout;
  private final Clock clock;
  private final OperatorMetrics metrics;
  private final CniNodeInformer cniNodeInformer;
  private final AttachmentDefinitions attachmentDefinitions;
  private final RevisionIntegrity integrity = new RevisionIntegrity();

  public CniNetworkReconciler(
      NetworkRenderer renderer,
      NetworkStatusFolder folder,
      NetworkEvents events,
      Duration finalizerTimeout,
      Clock clock,
      OperatorMetrics metrics,
      CniNodeInformer cniNodeInformer,
      AttachmentDefinitions attachmentDefinitions) {
    this.cniNodeInformer = cniNodeInformer;
    this.attachmentDefinitions = attachmentDefinitions;
    this.renderer = renderer;
    this.folder = folder;
    this.events = events;
    this.finalizerTimeout = finalizerTimeout;
    this.clock = clock;
    this.metrics = metrics;
  }

  @Override
  public List<EventSource<?, CniNetwork>> prepareEventSources(
      EventSourceContext<CniNetwork> context) {
    var nodes =
        InformerEventSourceConfiguration.from(Node.class, CniNetwork.class)
            .withSecondaryToPrimaryMapper(
                (Node n) ->
                    context
                        .getPrimaryCache()
                        .list()
                        .map(ResourceID::fromResource)
                        .collect(Collectors.toSet()))
            .withOnUpdateFilter(new NodeValuesChanged())
            .build();
    return List.of(
        new InformerEventSource<>(nodes, context),
        new CniNodeEventSource<CniNetwork>(cniNodeInformer, CniNetworkReconciler::networksNamedIn),
        MultusNamespaces.eventSource(context));
  }

  @Override
  public UpdateControl<CniNetwork> reconcile(CniNetwork network, Context<CniNetwork> context) {
    String name = network.getMetadata().getName();
    InformerEventSource<Node, CniNetwork> nodes = nodes(context);
    CniNodeEventSource<CniNetwork> cniNodes = cniNodes(context);
    boolean multus = network.getSpec().isMultus();
    if (!serving(nodes) || !serving(cniNodes) || (multus && !serving(namespaces(context)))) {
      // A reconcile while the operator stops (or before its informers have synced) would read
      // empty caches: no node selected, so a rollout would "complete" with 0/0 nodes and take an
      // unproven revision for the stable one. Decide nothing now, and look again: informers that
      // lost the API server (an outage, a network cut) serve again once they have re-listed, and
      // the event that brought this reconcile (an edit made during the outage) comes only once.
      log.info("event=reconcile-skipped network={} reason=informers-not-serving", name);
      return UpdateControl.<CniNetwork>noUpdate().rescheduleAfter(NOT_SERVING_RETRY);
    }
    Rendering rendering = keepLegacyIdentity(network, renderer.render(network));
    RenderedConfig accepted =
        rendering instanceof Rendering.Accepted a ? a.rendered() : keptRevision(network);
    NetworkPlacement placement =
        NetworkPlacement.across(
            nodes.list().toList(), candidates(context, network, accepted), name);
    Function<String, CniNode> cniNode = n -> cniNodes.get(n).orElse(null);
    Predicate<String> nodeExists = n -> nodes.get(new ResourceID(n)).isPresent();
    // The accepted revision's slices first: its rendering decides which nodes the rollout steps
    // over, and the rollout decides which earlier revision's slices nodes still need.
    List<NodeSlice> ofAcceptedSlices =
        NetworkSlices.next(network, accepted, List.of(), placement.holding(), nodeExists, cniNode);
    // Each node's rendering of the accepted revision, made once: the rollout steps over the nodes
    // that can have it, and the nodes it admits are folded against it. Only a node held back on
    // the stable revision is rendered again, for that one.
    Map<String, NodeConflist> ofAccepted = new TreeMap<>();
    Map<String, NodeValues> values = new TreeMap<>();
    RevisionRenderer acceptedRenderer =
        placement.holding().isEmpty() ? null : RevisionRenderer.of(accepted, ofAcceptedSlices);
    for (String n : placement.holding()) {
      nodes
          .get(new ResourceID(n))
          .map(NodeValues::of)
          .ifPresent(
              v -> {
                values.put(n, v);
                ofAccepted.put(n, acceptedRenderer.forNode(v));
              });
    }
    Instant now = clock.instant();
    RolloutMachine.Step rollout =
        accepted == null
            ? null
            : NetworkRollout.step(
                network,
                accepted,
                placement.holding().stream()
                    .filter(n -> ofAccepted.get(n) instanceof NodeConflist.Ready)
                    .toList(),
                cniNode,
                now);
    Placing placing = Placing.of(rollout == null ? null : rollout.status());
    List<NodeSlice> slices =
        NetworkSlices.next(
            network,
            accepted,
            NetworkSlices.stillHeld(rollout == null ? null : rollout.status()),
            placement.holding(),
            nodeExists,
            cniNode);
    logSlicesChanged(network, slices);
    // A node held back renders the stable revision: parsed and indexed once for all of them.
    Map<String, RevisionRenderer> heldBack = new HashMap<>();
    List<NodeReport> reports =
        placement.holding().stream()
            .map(
                n -> {
                  NodeConflist expected = null;
                  if (values.containsKey(n)) {
                    RenderedConfig revision =
                        AcceptedRevision.forNode(
                            name, accepted, placing, n, specOf(cniNode.apply(n)), integrity);
                    expected =
                        revision == accepted
                            ? ofAccepted.get(n)
                            : heldBack
                                .computeIfAbsent(
                                    revision.getSha256(),
                                    r -> RevisionRenderer.of(revision, slices))
                                .forNode(values.get(n));
                  }
                  return new NodeReport(n, reportOf(cniNode.apply(n), name), expected);
                })
            .toList();

    Optional<AttachmentReport> definitions =
        attachmentDefinitions.reconcile(
            network,
            accepted == null ? null : accepted.getNetworkName(),
            () -> namespaces(context).list().toList());
    NetworkStatusFolder.Folded nodesFolded =
        folder.fold(
            network,
            rendering,
            accepted,
            reports,
            placement.clashes(),
            rollout == null ? null : rollout.status(),
            now);
    NetworkStatusFolder.Folded folded =
        definitions
            .map(d -> AttachmentDefinitionsCondition.fold(nodesFolded, network, d, now))
            .orElse(nodesFolded);
    CniNetworkStatus status = folded.status().withSlices(slices.isEmpty() ? null : slices);
    metrics.networkObserved(name, folded.health(), status.getNodes());
    Optional<Duration> recheck =
        earliest(
            rollout == null ? Optional.empty() : rollout.recheckAfter(),
            definitions.flatMap(AttachmentReport::recheckAfter));
    if (status.equals(network.getStatus())) {
      return recheck
          .map(UpdateControl.<CniNetwork>noUpdate()::rescheduleAfter)
          .orElseGet(UpdateControl::noUpdate);
    }
    metrics.statusWritten();
    recordTransitions(network, status);
    log.info(
        "event=status-changed network={} generation={} accepted={} ready={} nodes={}",
        name,
        network.getMetadata().getGeneration(),
        folded.health().accepted(),
        folded.health().ready(),
        status.getNodes().getReady());
    Optional<RolloutOutcome> outcome =
        RolloutOutcome.reached(
            network.getStatus() == null ? null : network.getStatus().getRollout(),
            status.getRollout());
    CniNetwork patch = new CniNetwork();
    patch.setMetadata(new ObjectMetaBuilder().withName(name).build());
    patch.setStatus(status);
    // status.rollout is state the next reconcile builds on (which batch is admitted, whether it was
    // rolled back): it must read this write, not an informer copy from before it, or it would undo
    // it. So the patched resource goes into the cache at once.
    PrimaryUpdateAndCacheUtils.ssaPatchStatusAndCacheResource(network, patch, context);
    // Counted once written: the next reconcile starts from this status and sees no transition.
    outcome.ifPresent(o -> metrics.rolloutReached(name, o));
    UpdateControl<CniNetwork> control = UpdateControl.noUpdate();
    return recheck.map(control::rescheduleAfter).orElse(control);
  }

  private static void logSlicesChanged(CniNetwork network, List<NodeSlice> slices) {
    if (!slices.equals(NetworkSlices.current(network))) {
      log.info(
          "event=slices-changed network={} slices={}",
          network.getMetadata().getName(),
          slices.stream().map(s -> s.getNode() + "=" + s.getSlice()).toList());
    }
  }

  /**
   * {@code rendering}, with the sha256 status.rendered has when that is the same revision written
   * before nodeSlices were part of a revision's identity: an upgrade starts no rollout.
   */
  private static Rendering keepLegacyIdentity(CniNetwork network, Rendering rendering) {
    RenderedConfig stored = network.getStatus() == null ? null : network.getStatus().getRendered();
    if (rendering instanceof Rendering.Accepted a
        && AcceptedRevision.isLegacyOf(stored, a.rendered())) {
      return new Rendering.Accepted(a.rendered().withSha256(stored.getSha256()));
    }
    return rendering;
  }

  /** The revision nodes hold from before, when it is intact. */
  private RenderedConfig keptRevision(CniNetwork network) {
    RenderedConfig previous =
        network.getStatus() == null ? null : network.getStatus().getRendered();
    return previous != null && integrity.isIntact(previous) ? previous : null;
  }

  /** Every network's accepted revision, with {@code network}'s as decided now. */
  private List<AcceptedRevision> candidates(
      Context<CniNetwork> context, CniNetwork network, RenderedConfig accepted) {
    String name = network.getMetadata().getName();
    List<AcceptedRevision> candidates = new ArrayList<>();
    context
        .getPrimaryCache()
        .list()
        .filter(other -> !other.getMetadata().getName().equals(name))
        .map(other -> AcceptedRevision.of(other, integrity))
        .flatMap(Optional::stream)
        .forEach(candidates::add);
    if (accepted != null) {
      candidates.add(AcceptedRevision.withRendering(network, accepted));
    }
    return candidates;
  }

  private static Optional<Duration> earliest(Optional<Duration> a, Optional<Duration> b) {
    return Stream.of(a, b).flatMap(Optional::stream).min(Comparator.naturalOrder());
  }

  @Override
  public DeleteControl cleanup(CniNetwork network, Context<CniNetwork> context) {
    String name = network.getMetadata().getName();
    attachmentDefinitions.networkDeleted(network);
    List<String> pending =
        cniNodes(context)
            .list()
            .filter(n -> stillHolds(n, name))
            .map(n -> n.getMetadata().getName())
            .sorted()
            .toList();
    if (pending.isEmpty()) {
      metrics.networkGone(name);
      log.info("event=network-removed network={}", name);
      return DeleteControl.defaultDelete();
    }
    Instant deadline =
        Instant.parse(network.getMetadata().getDeletionTimestamp()).plus(finalizerTimeout);
    if (clock.instant().isAfter(deadline)) {
      String message =
          "nodes "
              + CappedList.names(pending)
              + " did not report removal within "
              + finalizerTimeout.toSeconds()
              + "s; their agents may be gone, finishing the deletion anyway";
      log.warn("event=finalizer-timeout network={} nodes={}", name, pending);
      events.warn(network, EventReason.REMOVAL_TIMED_OUT, message);
      metrics.networkGone(name);
      return DeleteControl.defaultDelete();
    }
    log.info("event=waiting-for-removal network={} nodes={}", name, pending);
    return DeleteControl.noFinalizerRemoval().rescheduleAfter(CLEANUP_POLL);
  }

  /**
   * Whether a node still holds the network: its spec lists it, or its agent (one that reports at
   * all) has not yet reported it removed. A CniNode without status has no agent to wait for.
   */
  static boolean stillHolds(CniNode node, String network) {
    boolean inSpec = node.getSpec() != null && node.getSpec().network(network).isPresent();
    NodeNetworkStatus report = reportOf(node, network);
    boolean reported = report != null && report.getState() != NetworkState.Removed;
    return inSpec || (node.getStatus() != null && reported);
  }

  private void recordTransitions(CniNetwork network, CniNetworkStatus status) {
    List<Condition> before =
        network.getStatus() == null ? List.of() : network.getStatus().getConditions();
    for (Condition after : status.getConditions()) {
      if (Conditions.isTransition(Conditions.find(before, after.getType()), after)) {
        events.conditionChanged(network, !isGood(after), after);
      }
    }
  }

  /** Whether {@code c} says all is well: a Normal Event for its transition, not a Warning. */
  private static boolean isGood(Condition c) {
    if (ConditionType.DEGRADED.is(c.getType())) {
      return "False".equals(c.getStatus());
    }
    if (ConditionType.ROLLED_OUT.is(c.getType())) {
      return !Conditions.ROLLOUT_STOPPED.contains(c.getReason());
    }
    return "True".equals(c.getStatus());
  }

  private static Set<ResourceID> networksNamedIn(CniNode node) {
    Set<String> names = new HashSet<>();
    if (node.getSpec() != null && node.getSpec().getNetworks() != null) {
      node.getSpec().getNetworks().forEach(n -> names.add(n.getName()));
    }
    if (node.getStatus() != null && node.getStatus().getNetworks() != null) {
      node.getStatus().getNetworks().forEach(n -> names.add(n.getName()));
    }
    return names.stream().filter(Objects::nonNull).map(ResourceID::new).collect(Collectors.toSet());
  }

  private static NodeNetworkStatus reportOf(CniNode node, String network) {
    return node == null || node.getStatus() == null
        ? null
        : node.getStatus().network(network).orElse(null);
  }

  private static CniNodeSpec specOf(CniNode node) {
    return node == null ? null : node.getSpec();
  }

  /** Whether an informer's cache can be believed: it runs, has synced and is watching. */
  private static boolean serving(AbstractEventSource<?, CniNetwork> source) {
    return source.isRunning() && source.getStatus() == Status.HEALTHY;
  }

  @SuppressWarnings("unchecked")
  private static InformerEventSource<Node, CniNetwork> nodes(Context<CniNetwork> context) {
    return (InformerEventSource<Node, CniNetwork>)
        context.eventSourceRetriever().getEventSourceFor(Node.class);
  }

  @SuppressWarnings("unchecked")
  private static InformerEventSource<Namespace, CniNetwork> namespaces(
      Context<CniNetwork> context) {
    return (InformerEventSource<Namespace, CniNetwork>)
        context.eventSourceRetriever().getEventSourceFor(Namespace.class);
  }

  @SuppressWarnings("unchecked")
  private static CniNodeEventSource<CniNetwork> cniNodes(Context<CniNetwork> context) {
    return (CniNodeEventSource<CniNetwork>)
        context.eventSourceRetriever().getEventSourceFor(CniNode.class);
  }
}
