package dev.cnioperator.operator.taint;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.operator.events.ClusterEvents;
import dev.cnioperator.operator.node.CniNodeEventSource;
import dev.cnioperator.operator.node.CniNodeInformer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the pod network taint ({@code <key>:NoSchedule}) on every node whose agent has not proven
 * the node's pod network with the chains declared onto it since it last started, and off every
 * other node the agent runs on ({@link TaintDecision}); with the feature turned off ({@link
 * PodNetworkTaintSettings#kept()} false), off every node. The operator is the taint's only writer:
 * agents need no right to change Nodes, and one writer cannot race another over the taint list.
 * Each change is one JSON patch that tests the Node's resourceVersion, so a taint another component
 * adds or removes at the same moment is never lost; on a conflict the reconcile fails and is
 * retried with the Node as it is now.
 */
@ControllerConfiguration(
    name = PodNetworkTaintReconciler.NAME,
    generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = TaintsChanged.class))
public class PodNetworkTaintReconciler implements Reconciler<Node> {
  public static final String NAME = "pod-network-taint";
  private static final Logger LOG = LoggerFactory.getLogger(PodNetworkTaintReconciler.class);

  private final KubernetesClient client;
  private final PodNetworkTaintSettings settings;
  private final CniNodeInformer cniNodeInformer;
  private final ClusterEvents events;

  public PodNetworkTaintReconciler(
      KubernetesClient client,
      PodNetworkTaintSettings settings,
      CniNodeInformer cniNodeInformer,
      ClusterEvents events) {
    this.client = client;
    this.settings = settings;
    this.cniNodeInformer = cniNodeInformer;
    this.events = events;
  }

  @Override
  public List<EventSource<?, Node>> prepareEventSources(EventSourceContext<Node> context) {
    if (!settings.kept()) {
      return List.of();
    }
    var ofNode =
        new CniNodeEventSource<Node>(
            cniNodeInformer, n -> Set.of(new ResourceID(n.getMetadata().getName())));
    var agents =
        InformerEventSourceConfiguration.from(Pod.class, Node.class)
            .withNamespaces(Set.of(settings.agentNamespace()))
            .withLabelSelector(settings.agentSelector())
            .withSecondaryToPrimaryMapper(
                (Pod p) ->
                    p.getSpec() == null || p.getSpec().getNodeName() == null
                        ? Set.of()
                        : Set.of(new ResourceID(p.getSpec().getNodeName())))
            .build();
    return List.of(ofNode, new InformerEventSource<>(agents, context));
  }

  @Override
  public UpdateControl<Node> reconcile(Node node, Context<Node> context) throws Exception {
    String name = node.getMetadata().getName();
    TaintDecision decision = settings.kept() ? decide(name, context) : TaintDecision.TURNED_OFF;
    int index = NodeTaints.indexOf(node, settings.key());
    if (decision.changes(index >= 0)) {
      patch(node, decision, index);
      tell(name, decision);
    }
    return UpdateControl.noUpdate();
  }

  /** Adds or removes the taint in one patch that tests the Node's resourceVersion. */
  private void patch(Node node, TaintDecision decision, int index) {
    ArrayNode patch = NodeTaints.testingVersion(node);
    if (decision.taint()) {
      NodeTaints.add(patch, node, settings.key());
    } else {
      NodeTaints.remove(patch, index);
    }
    NodeTaints.patch(client, node.getMetadata().getName(), patch);
  }

  private void tell(String name, TaintDecision decision) {
    String verb = decision.taint() ? "tainted " : "untainted ";
    LOG.info(
        "event=pod-network-taint node={} taint={} key={} reason=\"{}\"",
        name,
        decision.taint() ? "added" : "removed",
        settings.key(),
        decision.reason());
    events.onNode(
        name,
        decision.taint() ? EventReason.POD_NETWORK_TAINTED : EventReason.POD_NETWORK_UNTAINTED,
        verb + settings.key() + ":" + PodNetworkTaintSettings.EFFECT + ": " + decision.reason());
  }

  private static TaintDecision decide(String name, Context<Node> context) {
    @SuppressWarnings("unchecked")
    var ofNode =
        (CniNodeEventSource<Node>) context.eventSourceRetriever().getEventSourceFor(CniNode.class);
    // The agent pods bound to this node: JOSDK indexes them by the mapper above.
    List<Pod> onNode = List.copyOf(context.getSecondaryResources(Pod.class));
    return TaintDecision.decide(onNode, ofNode.get(name).orElse(null));
  }
}
