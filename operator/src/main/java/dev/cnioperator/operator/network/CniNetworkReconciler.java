package dev.cnioperator.operator.network;

import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.operator.devices.NetworkPublication;
import dev.cnioperator.operator.events.ClusterEvents;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import dev.cnioperator.operator.multus.AttachmentDefinitions;
import dev.cnioperator.operator.multus.AttachmentReport;
import dev.cnioperator.operator.multus.MultusNamespaces;
import dev.cnioperator.operator.node.CniNodeEventSource;
import dev.cnioperator.operator.node.CniNodeInformer;
import dev.cnioperator.operator.node.CniNodeWriter;
import dev.cnioperator.operator.node.NodeValuesChanged;
import dev.cnioperator.operator.placement.AcceptedRevision;
import dev.cnioperator.operator.placement.RevisionIntegrity;
import dev.cnioperator.operator.rollout.RolloutOutcome;
import dev.cnioperator.runtime.text.CappedList;
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
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reconciles a CniNetwork in four phases: observe (the informers' caches, nothing else), decide
 * ({@link NetworkDecider}: revision, placement, slices, rollout step, each node's report), act (a
 * Multus network's NetworkAttachmentDefinitions), record (the whole status folded by {@link
 * NetworkStatusFolder}, Events for transitions, and a status patch only when it changed). CniNode
 * specs are written by the NodeReconciler from the revisions and slices published here.
 */
@ControllerConfiguration(
    name = CniNetworkReconciler.NAME,
    fieldManager = CniNodeWriter.FIELD_MANAGER)
public class CniNetworkReconciler implements Reconciler<CniNetwork>, Cleaner<CniNetwork> {
  public static final String NAME = "cninetwork";

  private static final Logger log = LoggerFactory.getLogger(CniNetworkReconciler.class);
  private static final Duration CLEANUP_POLL = Duration.ofSeconds(2);
  private static final Duration NOT_SERVING_RETRY = Duration.ofSeconds(2);

  private final NetworkDecider decider;
  private final NetworkStatusFolder folder;
  private final ClusterEvents events;
  private final Duration finalizerTimeout;
  private final Clock clock;
  private final OperatorMetrics metrics;
  private final CniNodeInformer cniNodeInformer;
  private final AttachmentDefinitions attachmentDefinitions;
  private final NetworkPublication publication;
  private final RevisionIntegrity integrity = new RevisionIntegrity();

  public CniNetworkReconciler(
      NetworkRenderer renderer,
      NetworkStatusFolder folder,
      ClusterEvents events,
      Duration finalizerTimeout,
      Clock clock,
      OperatorMetrics metrics,
      CniNodeInformer cniNodeInformer,
      AttachmentDefinitions attachmentDefinitions,
      NetworkPublication publication) {
    this.cniNodeInformer = cniNodeInformer;
    this.attachmentDefinitions = attachmentDefinitions;
    this.publication = publication;
    this.decider = new NetworkDecider(renderer, clock, integrity);
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
    Optional<NetworkDecider.Observed> observed = observe(network, context);
    if (observed.isEmpty()) {
      // Empty caches would select no node, so a rollout would "complete" with 0/0 nodes. Decide
      // nothing; informers serve again once they have re-listed, and this event comes only once.
      log.info(
          "event=reconcile-skipped network={} reason=informers-not-serving",
          network.getMetadata().getName());
      return UpdateControl.<CniNetwork>noUpdate().rescheduleAfter(NOT_SERVING_RETRY);
    }
    NetworkDecider.Decision decision = decider.decide(network, observed.get());
    Optional<AttachmentReport> definitions = act(network, decision, observed.get());
    NetworkStatusFolder.Folded folded =
        folder.fold(network, decision.statusInput(definitions), decision.now());
    Optional<Duration> recheck =
        earliest(decision.recheckAfter(), definitions.flatMap(AttachmentReport::recheckAfter));
    return record(network, folded, context, recheck);
  }

  /** The caches the reconcile reads, or empty while one of them cannot be believed. */
  private Optional<NetworkDecider.Observed> observe(
      CniNetwork network, Context<CniNetwork> context) {
    InformerEventSource<Node, CniNetwork> nodes = nodes(context);
    CniNodeEventSource<CniNetwork> cniNodes = cniNodes(context);
    InformerEventSource<Namespace, CniNetwork> namespaces = namespaces(context);
    if (!serving(nodes)
        || !serving(cniNodes)
        || (network.getSpec().isMultus() && !serving(namespaces))) {
      return Optional.empty();
    }
    String name = network.getMetadata().getName();
    List<AcceptedRevision> others =
        context
            .getPrimaryCache()
            .list()
            .filter(other -> !other.getMetadata().getName().equals(name))
            .map(other -> AcceptedRevision.of(other, integrity))
            .flatMap(Optional::stream)
            .toList();
    return Optional.of(
        new NetworkDecider.Observed(nodes, cniNodes, () -> namespaces.list().toList(), others));
  }

  /**
   * What the reconcile changes beside status: a Multus network's NetworkAttachmentDefinitions, and
   * for a network published to the scheduler its DeviceClass and its ResourceClaimTemplates beside
   * the definitions.
   */
  private Optional<AttachmentReport> act(
      CniNetwork network, NetworkDecider.Decision decision, NetworkDecider.Observed observed) {
    String name = decision.accepted() == null ? null : decision.accepted().getNetworkName();
    Optional<AttachmentReport> definitions =
        attachmentDefinitions.reconcile(network, name, observed.namespaces());
    publication.reconcile(
        network, name, definitions.map(AttachmentReport::namespaces).orElse(List.of()));
    return definitions;
  }

  /** Patches the status when it changed, with its Events, logs and metrics. */
  private UpdateControl<CniNetwork> record(
      CniNetwork network,
      NetworkStatusFolder.Folded folded,
      Context<CniNetwork> context,
      Optional<Duration> recheck) {
    String name = network.getMetadata().getName();
    CniNetworkStatus status = folded.status();
    metrics.networkObserved(name, folded.health(), status.getNodes());
    UpdateControl<CniNetwork> control = UpdateControl.noUpdate();
    if (status.equals(network.getStatus())) {
      return recheck.map(control::rescheduleAfter).orElse(control);
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
    return recheck.map(control::rescheduleAfter).orElse(control);
  }

  private static Optional<Duration> earliest(Optional<Duration> a, Optional<Duration> b) {
    return Stream.of(a, b).flatMap(Optional::stream).min(Comparator.naturalOrder());
  }

  @Override
  public DeleteControl cleanup(CniNetwork network, Context<CniNetwork> context) {
    String name = network.getMetadata().getName();
    attachmentDefinitions.networkDeleted(network);
    publication.networkDeleted(network);
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

  /**
   * Whether {@code c} says all is well or on its way there: a Normal Event for its transition, not
   * a Warning.
   */
  private static boolean isGood(Condition c) {
    if (ConditionType.DEGRADED.is(c.getType())) {
      return "False".equals(c.getStatus());
    }
    if (ConditionType.ROLLED_OUT.is(c.getType())) {
      return !Conditions.ROLLOUT_STOPPED.contains(c.getReason());
    }
    if (ConditionType.PLUGINS_APPENDED.is(c.getType())) {
      // Who else is in the file, either way: information, never a call for a person.
      return true;
    }
    if (ConditionType.READY.is(c.getType())
        && Conditions.READY_IN_PROGRESS.contains(c.getReason())) {
      return true;
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

  static NodeNetworkStatus reportOf(CniNode node, String network) {
    return node == null || node.getStatus() == null
        ? null
        : node.getStatus().network(network).orElse(null);
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
