package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.multus.AttachmentReport;
import dev.cnioperator.operator.node.CniNodeEventSource;
import dev.cnioperator.operator.placement.AcceptedRevision;
import dev.cnioperator.operator.placement.NetworkPlacement;
import dev.cnioperator.operator.placement.RevisionIntegrity;
import dev.cnioperator.operator.rollout.NodeRevisionChoice.Placing;
import dev.cnioperator.operator.rollout.RolloutMachine;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, from the informers' caches alone, what a network's nodes get now: its revision (the
 * current generation rendered, or the last valid one kept), the nodes it is placed on with their
 * slices, the rollout's next step, and what each node should hold beside what it reports.
 */
final class NetworkDecider {
  private static final Logger log = LoggerFactory.getLogger(NetworkDecider.class);

  private final NetworkRenderer renderer;
  private final Clock clock;
  private final RevisionIntegrity integrity;

  NetworkDecider(NetworkRenderer renderer, Clock clock, RevisionIntegrity integrity) {
    this.renderer = renderer;
    this.clock = clock;
    this.integrity = integrity;
  }

  /**
   * What the reconcile reads, all from the informers' caches: nothing is asked of the API server.
   */
  record Observed(
      InformerEventSource<Node, CniNetwork> nodes,
      CniNodeEventSource<CniNetwork> cniNodes,
      Supplier<Collection<Namespace>> namespaces,
      List<AcceptedRevision> others) {

    CniNode cniNode(String node) {
      return cniNodes.get(node).orElse(null);
    }

    boolean nodeExists(String node) {
      return nodes.get(new ResourceID(node)).isPresent();
    }
  }

  /**
   * What the operator decides for the network now: its revision, the nodes it goes to with their
   * slices, the rollout's next step, and what each node should hold and reports.
   */
  record Decision(
      Rendering rendering,
      RenderedConfig accepted,
      NetworkPlacement placement,
      RolloutMachine.Step rollout,
      List<NodeSlice> slices,
      List<NodeReport> reports,
      Instant now) {

    RolloutStatus rolloutStatus() {
      return rollout == null ? null : rollout.status();
    }

    Optional<Duration> recheckAfter() {
      return rollout == null ? Optional.empty() : rollout.recheckAfter();
    }

    NetworkStatusFolder.Input statusInput(Optional<AttachmentReport> definitions) {
      return new NetworkStatusFolder.Input(
          rendering, accepted, reports, placement.clashes(), rolloutStatus(), slices, definitions);
    }
  }

  Decision decide(CniNetwork network, Observed observed) {
    String name = network.getMetadata().getName();
    Rendering rendering = renderer.render(network);
    RenderedConfig accepted =
        rendering instanceof Rendering.Accepted a ? a.rendered() : keptRevision(network);
    List<AcceptedRevision> candidates = new ArrayList<>(observed.others());
    if (accepted != null) {
      candidates.add(AcceptedRevision.withRendering(network, accepted));
    }
    NetworkPlacement placement =
        NetworkPlacement.across(observed.nodes().list().toList(), candidates, name);
    // The accepted revision's slices first: its rendering decides which nodes the rollout steps
    // over, and the rollout decides which earlier revision's slices nodes still need.
    List<NodeSlice> acceptedSlices = slices(network, accepted, List.of(), placement, observed);
    NodeRenderings renderings =
        NodeRenderings.of(accepted, acceptedSlices, placement.holding(), observed.nodes());
    Instant now = clock.instant();
    RolloutMachine.Step rollout =
        accepted == null
            ? null
            : NetworkRollout.step(network, accepted, renderings.ready(), observed::cniNode, now);
    RolloutStatus rolloutStatus = rollout == null ? null : rollout.status();
    List<NodeSlice> slices =
        slices(network, accepted, NetworkSlices.stillHeld(rolloutStatus), placement, observed);
    logSlicesChanged(network, slices);
    Placing placing = Placing.of(rolloutStatus);
    List<NodeReport> reports =
        placement.holding().stream()
            .map(
                n ->
                    new NodeReport(
                        n,
                        CniNetworkReconciler.reportOf(observed.cniNode(n), name),
                        renderings.expected(
                            n,
                            () ->
                                AcceptedRevision.forNode(
                                    name,
                                    accepted,
                                    placing,
                                    n,
                                    specOf(observed.cniNode(n)),
                                    integrity),
                            slices)))
            .toList();
    return new Decision(rendering, accepted, placement, rollout, slices, reports, now);
  }

  private static List<NodeSlice> slices(
      CniNetwork network,
      RenderedConfig accepted,
      List<RenderedConfig> stillHeld,
      NetworkPlacement placement,
      Observed observed) {
    return NetworkSlices.next(
        network, accepted, stillHeld, placement.holding(), observed::nodeExists, observed::cniNode);
  }

  private static void logSlicesChanged(CniNetwork network, List<NodeSlice> slices) {
    if (!slices.equals(NetworkSlices.current(network))) {
      log.info(
          "event=slices-changed network={} slices={}",
          network.getMetadata().getName(),
          slices.stream().map(s -> s.getNode() + "=" + s.getSlice()).toList());
    }
  }

  /** The revision nodes hold from before, when it is intact. */
  private RenderedConfig keptRevision(CniNetwork network) {
    RenderedConfig previous =
        network.getStatus() == null ? null : network.getStatus().getRendered();
    return previous != null && integrity.isIntact(previous) ? previous : null;
  }

  private static CniNodeSpec specOf(CniNode node) {
    return node == null ? null : node.getSpec();
  }
}
