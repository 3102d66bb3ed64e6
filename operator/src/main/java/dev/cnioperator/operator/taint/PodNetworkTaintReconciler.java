package dev.cnioperator.operator.taint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.cnioperator.api.reasons.EventReason;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.operator.node.CniNodeEventSource;
import dev.cnioperator.operator.node.CniNodeInformer;
import dev.cnioperator.runtime.client.CallDeadline;
import dev.cnioperator.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
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
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the pod network taint ({@code <key>:NoSchedule}) on every node whose agent has not proven
 * the node's pod network with the chains declared onto it since it last started, and off every
 * other node the agent runs on ({@link TaintDecision}). The operator is the taint's only writer:
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
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final CallDeadline EVENT_DEADLINE = new CallDeadline(Duration.ofSeconds(30));

  private final KubernetesClient client;
  private final PodNetworkTaintSettings settings;
  private final CniNodeInformer cniNodeInformer;
  private final EventRecorder events;

  public PodNetworkTaintReconciler(
      KubernetesClient client,
      PodNetworkTaintSettings settings,
      CniNodeInformer cniNodeInformer,
      Clock clock) {
    this.client = client;
    this.settings = settings;
    this.cniNodeInformer = cniNodeInformer;
    this.events = new EventRecorder(client, clock, "cni-operator", null, EVENT_DEADLINE);
  }

  @Override
  public List<EventSource<?, Node>> prepareEventSources(EventSourceContext<Node> context) {
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
    @SuppressWarnings("unchecked")
    var ofNode =
        (CniNodeEventSource<Node>) context.eventSourceRetriever().getEventSourceFor(CniNode.class);
    // The agent pods bound to this node: JOSDK indexes them by the mapper above.
    List<Pod> onNode = List.copyOf(context.getSecondaryResources(Pod.class));
    TaintDecision decision = TaintDecision.decide(onNode, ofNode.get(name).orElse(null));
    int index = indexOfTaint(node);
    if (!decision.changes(index >= 0)) {
      return UpdateControl.noUpdate();
    }
    ArrayNode patch = JSON.createArrayNode();
    patch
        .addObject()
        .put("op", "test")
        .put("path", "/metadata/resourceVersion")
        .put("value", node.getMetadata().getResourceVersion());
    if (decision.taint()) {
      Taint taint = new Taint(PodNetworkTaintSettings.EFFECT, settings.key(), null, null);
      // The API server leaves an empty list out, so "/spec/taints/-" would have nothing to add to.
      boolean none =
          node.getSpec() == null
              || node.getSpec().getTaints() == null
              || node.getSpec().getTaints().isEmpty();
      patch
          .addObject()
          .put("op", "add")
          .put("path", none ? "/spec/taints" : "/spec/taints/-")
          .set("value", JSON.valueToTree(none ? List.of(taint) : taint));
    } else {
      patch.addObject().put("op", "remove").put("path", "/spec/taints/" + index);
    }
    client
        .nodes()
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(patch));
    EventReason reason =
        decision.taint() ? EventReason.POD_NETWORK_TAINTED : EventReason.POD_NETWORK_UNTAINTED;
    LOG.info(
        "event=pod-network-taint node={} taint={} key={} reason=\"{}\"",
        name,
        decision.taint() ? "added" : "removed",
        settings.key(),
        decision.reason());
    // kubectl describe node finds a Node's Events by a uid equal to its name, as the kubelet
    // records them.
    events.record(
        EventRecorder.CLUSTER_SCOPED_NAMESPACE,
        new ObjectReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(name)
            .withUid(name)
            .build(),
        false,
        reason.wire(),
        (decision.taint() ? "tainted " : "untainted ")
            + settings.key()
            + ":"
            + PodNetworkTaintSettings.EFFECT
            + ": "
            + decision.reason());
    return UpdateControl.noUpdate();
  }

  /** Where the node's taint of this key and effect is in its list, or -1. */
  private int indexOfTaint(Node node) {
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    if (taints == null) {
      return -1;
    }
    for (int i = 0; i < taints.size(); i++) {
      if (settings.key().equals(taints.get(i).getKey())
          && PodNetworkTaintSettings.EFFECT.equals(taints.get(i).getEffect())) {
        return i;
      }
    }
    return -1;
  }
}
