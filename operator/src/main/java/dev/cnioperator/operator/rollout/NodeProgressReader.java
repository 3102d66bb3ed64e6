package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads one node's {@link NodeProgress} for a network from its CniNode: the revision its spec
 * holds, and whether its agent proved the content of that spec (a probe report for exactly that
 * sha256), failed it, or could not apply it at all.
 */
public final class NodeProgressReader {

  private NodeProgressReader() {}

  /**
   * @param revision the revision being rolled out
   * @param stableRevision the stable revision, null if none
   */
  public static NodeProgress read(
      String node, CniNode cniNode, String network, String revision, String stableRevision) {
    Optional<NodeNetwork> spec =
        cniNode == null || cniNode.getSpec() == null
            ? Optional.empty()
            : cniNode.getSpec().network(network).filter(n -> n.getContent() != null);
    if (spec.isEmpty()) {
      return NodeProgress.holding(node, NodeProgress.Holding.NOTHING);
    }
    String held = spec.get().getRevision();
    if (!revision.equals(held)) {
      boolean stable = held != null && held.equals(stableRevision);
      return NodeProgress.holding(
          node, stable ? NodeProgress.Holding.STABLE : NodeProgress.Holding.OTHER);
    }
    Optional<NodeNetworkStatus> report =
        cniNode.getStatus() == null ? Optional.empty() : cniNode.getStatus().network(network);
    String sha = spec.get().getSha256();
    ProbeReport probe = report.map(NodeNetworkStatus::getProbe).orElse(null);
    if (probe != null && sha != null && sha.equals(probe.getSha256())) {
      return probe.getResult() == ProbeResult.Passed
          ? NodeProgress.passed(node)
          : NodeProgress.failed(node, probe.getMessage());
    }
    if (report.isPresent() && failedThisSpec(cniNode, report.get())) {
      return NodeProgress.failed(node, "apply: " + report.get().getMessage());
    }
    return new NodeProgress(node, NodeProgress.Holding.REVISION, NodeProgress.Proof.PENDING, null);
  }

  /** The agent reports the network Failed (or Conflict) after reading the current spec. */
  private static boolean failedThisSpec(CniNode cniNode, NodeNetworkStatus report) {
    boolean failed =
        report.getState() == NetworkState.Failed || report.getState() == NetworkState.Conflict;
    Long observed = cniNode.getStatus().getObservedGeneration();
    return failed
        && observed != null
        && Objects.equals(observed, cniNode.getMetadata().getGeneration());
  }
}
