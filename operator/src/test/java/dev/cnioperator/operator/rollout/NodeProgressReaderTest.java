package dev.cnioperator.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeProgressReaderTest {
  private static final String NEW = "1".repeat(64);
  private static final String STABLE = "2".repeat(64);
  private static final String CONTENT_SHA = "c".repeat(64);

  private static CniNode node(String revision, NodeNetworkStatus report, long observed) {
    CniNode node = new CniNode();
    node.setMetadata(new ObjectMetaBuilder().withName("n1").withGeneration(3L).build());
    node.setSpec(
        new CniNodeSpec()
            .setNetworks(
                List.of(
                    new NodeNetwork()
                        .setName("net")
                        .setRevision(revision)
                        .setSha256(CONTENT_SHA)
                        .setContent("{}"))));
    if (report != null) {
      node.setStatus(
          new CniNodeStatus().setNetworks(List.of(report)).setObservedGeneration(observed));
    }
    return node;
  }

  private static NodeNetworkStatus probed(String sha, ProbeResult result, String message) {
    return new NodeNetworkStatus()
        .setName("net")
        .setState(NetworkState.Applied)
        .setAppliedSha256(sha)
        .setProbe(new ProbeReport().setSha256(sha).setResult(result).setMessage(message));
  }

  private static NodeProgress read(CniNode node) {
    return NodeProgressReader.read("n1", node, "net", NEW, STABLE);
  }

  @Test
  void holdingIsReadFromTheRevisionTheSpecNames() {
    assertThat(read(null).holding()).isEqualTo(NodeProgress.Holding.NOTHING);
    assertThat(read(node(STABLE, null, 0)).holding()).isEqualTo(NodeProgress.Holding.STABLE);
    assertThat(read(node(null, null, 0)).holding())
        .as("a spec naming no revision is not known to hold the stable one")
        .isEqualTo(NodeProgress.Holding.OTHER);
    assertThat(read(node("3".repeat(64), null, 0)).holding()).isEqualTo(NodeProgress.Holding.OTHER);
    assertThat(read(node(NEW, null, 0)).holding()).isEqualTo(NodeProgress.Holding.REVISION);
  }

  @Test
  void onlyAProbeOfExactlyTheSpecContentCounts() {
    assertThat(read(node(NEW, probed(CONTENT_SHA, ProbeResult.Passed, null), 3)).proof())
        .isEqualTo(NodeProgress.Proof.PASSED);
    // A report on the content held before this revision proves nothing about it.
    assertThat(read(node(NEW, probed("d".repeat(64), ProbeResult.Passed, null), 3)).proof())
        .isEqualTo(NodeProgress.Proof.PENDING);
    NodeProgress failed = read(node(NEW, probed(CONTENT_SHA, ProbeResult.Failed, "ADD: x"), 3));
    assertThat(failed.proof()).isEqualTo(NodeProgress.Proof.FAILED);
    assertThat(failed.message()).isEqualTo("ADD: x");
  }

  @Test
  void anApplyThatFailedForTheCurrentSpecFailsTheNode() {
    NodeNetworkStatus failed =
        new NodeNetworkStatus()
            .setName("net")
            .setState(NetworkState.Failed)
            .setMessage("plugin macvlan missing");

    assertThat(read(node(NEW, failed, 3)).proof()).isEqualTo(NodeProgress.Proof.FAILED);
    assertThat(read(node(NEW, failed, 3)).message()).isEqualTo("apply: plugin macvlan missing");
    // Reported for an older spec: the agent has not read this one yet.
    assertThat(read(node(NEW, failed, 2)).proof()).isEqualTo(NodeProgress.Proof.PENDING);
  }
}
