package dev.cnioperator.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import org.junit.jupiter.api.Test;

class OwnCniNodeTest {
  private static CniNode node(String uid, Long generation, String deleted, String status) {
    CniNode n = new CniNode();
    n.setMetadata(
        new ObjectMetaBuilder()
            .withName("n1")
            .withUid(uid)
            .withGeneration(generation)
            .withDeletionTimestamp(deleted)
            .withResourceVersion(status)
            .build());
    n.setStatus(new CniNodeStatus().setObservedGeneration(generation));
    return n;
  }

  @Test
  void aStatusWriteAsksForNoPass() {
    assertThat(OwnCniNode.specMayDiffer(node("u", 3L, null, "10"), node("u", 3L, null, "11")))
        .isFalse();
  }

  @Test
  void aNewSpecADeletionOrAnotherObjectAskForAPass() {
    CniNode before = node("u", 3L, null, "10");
    assertThat(OwnCniNode.specMayDiffer(before, node("u", 4L, null, "11"))).isTrue();
    assertThat(OwnCniNode.specMayDiffer(before, node("u", 3L, "2026-11-23T10:00:00Z", "11")))
        .isTrue();
    assertThat(OwnCniNode.specMayDiffer(before, node("v", 3L, null, "11"))).isTrue();
    assertThat(OwnCniNode.specMayDiffer(node("u", null, null, "1"), node("u", null, null, "2")))
        .isTrue();
  }
}
