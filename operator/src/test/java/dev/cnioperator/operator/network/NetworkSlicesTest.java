package dev.cnioperator.operator.network;

import static dev.cnioperator.operator.TestNetworks.network;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The release rule as the network's reconciler applies it to a node the network left. */
class NetworkSlicesTest {
  private static final NodeSlice A = new NodeSlice().setNode("a").setSlice("10.200.16.0/26");
  private static final NodeSlice B = new NodeSlice().setNode("b").setSlice("10.200.16.64/26");

  /** A network cut into two /26 slices, a and b holding one each; a has left ("c" waits). */
  private static CniNetwork settled() {
    CniNetwork n = network("net", "{\"type\":\"bridge\"}");
    n.getSpec().setNodeSlices(new NodeSlices().setSubnet("10.200.16.0/25").setPrefixLength(26));
    RenderedConfig rendered = ((Rendering.Accepted) new NetworkRenderer().render(n)).rendered();
    n.setStatus(new CniNetworkStatus().setRendered(rendered).setSlices(List.of(A, B)));
    return n;
  }

  /** a's CniNode at generation 5, listing the network in its spec or not, with this report. */
  private static CniNode cniNodeOfA(boolean inSpec, NetworkState reported, Long observed) {
    CniNode node = new CniNode();
    node.setMetadata(new ObjectMetaBuilder().withName("a").withGeneration(5L).build());
    node.setSpec(
        new CniNodeSpec()
            .setNetworks(inSpec ? List.of(new NodeNetwork().setName("net")) : List.of()));
    if (reported != null) {
      node.setStatus(
          new CniNodeStatus()
              .setObservedGeneration(observed)
              .setNetworks(List.of(new NodeNetworkStatus().setName("net").setState(reported))));
    }
    return node;
  }

  private static List<NodeSlice> next(CniNode a, boolean nodeExists) {
    CniNetwork n = settled();
    return NetworkSlices.next(
        n,
        n.getStatus().getRendered(),
        List.of(),
        List.of("b", "c"),
        node -> nodeExists,
        node -> a);
  }

  @Test
  void aNodeThatLeftKeepsItsSliceWhileItsCniNodeMayHoldTheNetwork() {
    assertThat(next(cniNodeOfA(true, NetworkState.Applied, 4L), true))
        .as("its spec still lists the network")
        .containsExactly(A, B);
    assertThat(next(cniNodeOfA(false, NetworkState.Applied, 5L), true))
        .as("taken off its spec, but its agent still reports the file applied")
        .containsExactly(A, B);
    assertThat(next(cniNodeOfA(false, NetworkState.Removed, 4L), true))
        .as("Removed, but reported before the agent read the spec that took it off")
        .containsExactly(A, B);
  }

  @Test
  void itsSliceGoesToTheNextNodeOnceItsAgentRemovedTheFileOrTheNodeIsGone() {
    List<NodeSlice> handedOn = List.of(B, new NodeSlice().setNode("c").setSlice("10.200.16.0/26"));

    assertThat(next(cniNodeOfA(false, NetworkState.Removed, 5L), true)).isEqualTo(handedOn);
    assertThat(next(cniNodeOfA(false, null, null), true))
        .as("no agent ever reported: nothing was written there")
        .isEqualTo(handedOn);
    assertThat(next(cniNodeOfA(true, NetworkState.Applied, 5L), false))
        .as("the Node is deleted")
        .isEqualTo(handedOn);
  }

  @Test
  void withoutAnAcceptedRevisionTheSlicesStayAndWithoutNodeSlicesThereAreNone() {
    CniNetwork n = settled();
    CniNode a = cniNodeOfA(false, null, null);

    assertThat(NetworkSlices.next(n, null, List.of(), List.of(), node -> true, node -> a))
        .containsExactly(A, B);
    RenderedConfig unsliced = n.getStatus().getRendered().setNodeSlices(null);
    assertThat(NetworkSlices.next(n, unsliced, List.of(), List.of("b"), node -> true, node -> a))
        .isEmpty();
  }

  @Test
  void anEditOfNodeSlicesKeepsTheOldSlicesUntilItsRolloutCompletes() {
    CniNetwork n = settled();
    RenderedConfig old = n.getStatus().getRendered();
    n.getSpec().setNodeSlices(new NodeSlices().setSubnet("10.200.32.0/25").setPrefixLength(26));
    RenderedConfig edited = ((Rendering.Accepted) new NetworkRenderer().render(n)).rendered();
    NodeSlice newA = new NodeSlice().setNode("a").setSlice("10.200.32.0/26");
    NodeSlice newB = new NodeSlice().setNode("b").setSlice("10.200.32.64/26");
    RolloutStatus rollout =
        new RolloutStatus()
            .setPhase(RolloutPhase.Progressing)
            .setRevision(edited.getSha256())
            .setStableRevision(old.getSha256())
            .setStable(old);

    assertThat(next(n, edited, rollout))
        .as("rolling out: held-back nodes render the stable revision with their old slice")
        .containsExactly(A, newA, B, newB);
    assertThat(next(n, edited, rollout.setPhase(RolloutPhase.RolledBack)))
        .as("rolled back: every node holds the stable revision")
        .containsExactly(A, newA, B, newB);
    n.getStatus().setSlices(List.of(A, newA, B, newB));
    assertThat(next(n, edited, rollout.setPhase(RolloutPhase.Complete).setStable(null)))
        .as("complete: the old revision's slices are freed")
        .containsExactly(newA, newB);
  }

  private static List<NodeSlice> next(CniNetwork n, RenderedConfig accepted, RolloutStatus r) {
    return NetworkSlices.next(
        n, accepted, NetworkSlices.stillHeld(r), List.of("a", "b"), node -> true, node -> null);
  }
}
