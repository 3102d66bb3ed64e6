package dev.cnioperator.operator.node;

import static dev.cnioperator.operator.TestNetworks.network;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodeCounts;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeRelevantChangesTest {
  private static CniNetwork at(long generation, Long observed, String sha, String ready) {
    CniNetwork n = network("net", "{\"type\":\"bridge\"}");
    n.getMetadata().setGeneration(generation);
    n.setStatus(
        new CniNetworkStatus()
            .setObservedGeneration(observed)
            .setRendered(new RenderedConfig().setSha256(sha))
            .setNodes(new NodeCounts().setReady(ready)));
    return n;
  }

  private static boolean relevant(CniNetwork now, CniNetwork before) {
    return NodeRelevantChanges.NETWORK.accept(now, before);
  }

  @Test
  void anEditCountsOnceItsReconcilerHasObservedItNotWhenItArrives() {
    CniNetwork settled = at(3, 3L, "a", "2/2");

    assertThat(relevant(at(4, 3L, "a", "2/2"), settled)).as("the edit arrives").isFalse();
    assertThat(relevant(at(4, 4L, "a", "2/2"), at(4, 3L, "a", "2/2")))
        .as("observed, same revision (a settings edit)")
        .isTrue();
    assertThat(relevant(at(4, 4L, "b", "0/2"), at(4, 3L, "a", "2/2")))
        .as("observed with a new revision")
        .isTrue();
  }

  @Test
  void reportsFoldedIntoTheStatusChangeNoNodesSpec() {
    assertThat(relevant(at(3, 3L, "a", "1/2"), at(3, 3L, "a", "2/2"))).isFalse();
  }

  @Test
  void aDeletionCounts() {
    CniNetwork deleting = at(3, 3L, "a", "2/2");
    deleting.getMetadata().setDeletionTimestamp("2026-11-23T10:00:00Z");

    assertThat(relevant(deleting, at(3, 3L, "a", "2/2"))).isTrue();
  }

  @Test
  void newSlicesReEvaluateTheNodesWhichAreRenderedWithThem() {
    CniNetwork before = at(3, 3L, "a", "1/2");
    CniNetwork after = at(3, 3L, "a", "1/2");
    after.getStatus().setSlices(List.of(new NodeSlice().setNode("n1").setSlice("10.200.16.0/26")));

    assertThat(relevant(after, before)).isTrue();
  }
}
