package dev.cnioperator.operator.node;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniPlugin;
import dev.cnioperator.operator.placement.RevisionIntegrity;
import dev.cnioperator.operator.template.RenderersByRevision;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
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
import java.util.stream.Collectors;

/**
 * Keeps one CniNode per Node holding exactly the networks and plugins that node must have. It is
 * the only writer of CniNode specs; any CniNetwork or CniPlugin change re-evaluates every node,
 * because a clash on one node is decided among all networks.
 */
@ControllerConfiguration(
    name = NodeReconciler.NAME,
    fieldManager = CniNodeWriter.FIELD_MANAGER,
    generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = NodeValuesChanged.class))
public class NodeReconciler implements Reconciler<Node> {
  public static final String NAME = "node";

  private final CniNodeWriter writer;
  private final CniNodeInformer cniNodeInformer;
  private final RenderersByRevision renderers = new RenderersByRevision();
  private final RevisionIntegrity integrity = new RevisionIntegrity();

  public NodeReconciler(CniNodeWriter writer, CniNodeInformer cniNodeInformer) {
    this.writer = writer;
    this.cniNodeInformer = cniNodeInformer;
  }

  @Override
  public List<EventSource<?, Node>> prepareEventSources(EventSourceContext<Node> context) {
    var ofNode =
        new CniNodeEventSource<Node>(
            cniNodeInformer, n -> Set.of(new ResourceID(n.getMetadata().getName())));
    ofNode.setOnUpdateFilter(NodeRelevantChanges.CNI_NODE);
    var networks =
        InformerEventSourceConfiguration.from(CniNetwork.class, Node.class)
            .withSecondaryToPrimaryMapper((CniNetwork n) -> allNodes(context))
            .withOnUpdateFilter(NodeRelevantChanges.NETWORK)
            .build();
    var plugins =
        InformerEventSourceConfiguration.from(CniPlugin.class, Node.class)
            .withSecondaryToPrimaryMapper((CniPlugin p) -> allNodes(context))
            .build();
    return List.of(
        ofNode,
        new InformerEventSource<>(networks, context),
        new InformerEventSource<>(plugins, context));
  }

  @Override
  public UpdateControl<Node> reconcile(Node node, Context<Node> context) {
    List<CniNetwork> networks = all(context, CniNetwork.class);
    List<CniPlugin> plugins = all(context, CniPlugin.class);
    @SuppressWarnings("unchecked")
    var ofNode =
        (CniNodeEventSource<Node>) context.eventSourceRetriever().getEventSourceFor(CniNode.class);
    CniNode existing = ofNode.get(node.getMetadata().getName()).orElse(null);
    CniNodeSpec desired =
        DesiredNodeSpec.compute(
            node,
            networks,
            plugins,
            existing == null ? null : existing.getSpec(),
            renderers,
            integrity);
    writer.write(node, existing, desired);
    return UpdateControl.noUpdate();
  }

  private static Set<ResourceID> allNodes(EventSourceContext<Node> context) {
    return context
        .getPrimaryCache()
        .list()
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }

  /** Every cached resource of a kind this controller watches. */
  @SuppressWarnings("unchecked")
  private static <R extends HasMetadata> List<R> all(Context<Node> context, Class<R> kind) {
    var source =
        (InformerEventSource<R, Node>) context.eventSourceRetriever().getEventSourceFor(kind);
    return source.list().toList();
  }
}
