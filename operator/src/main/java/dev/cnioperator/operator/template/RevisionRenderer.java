package dev.cnioperator.operator.template;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.operator.slices.SliceOfNode;
import dev.cnioperator.operator.slices.SlicesByNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Renders one revision of a network for each node ({@link NodeConflist}), with what every node's
 * rendering shares read once: the revision's template parsed, its status.slices indexed by node,
 * and, for a revision that is the same on every node, its sha256. A reconcile that renders all the
 * nodes of a large cluster does per node only what differs between nodes.
 */
public final class RevisionRenderer {
  private final RenderedConfig revision;
  private final SlicesByNode slices;
  private final Optional<ObjectNode> template;
  private final String damaged;
  private final String sameOnEveryNodeSha256;

  private RevisionRenderer(
      RenderedConfig revision, SlicesByNode slices, Optional<ObjectNode> template, String damaged) {
    this.revision = revision;
    this.slices = slices;
    this.template = template;
    this.damaged = damaged;
    this.sameOnEveryNodeSha256 =
        damaged == null && template.isEmpty()
            ? Sha256.hex(revision.getContent().getBytes(StandardCharsets.UTF_8))
            : null;
  }

  /**
   * {@code revision} (status.rendered of a CniNetwork), whose nodes' slices of its nodeSlices are
   * the ones {@code slices} (that network's status.slices) lists.
   */
  public static RevisionRenderer of(RenderedConfig revision, List<NodeSlice> slices) {
    SlicesByNode byNode = SlicesByNode.of(revision.getNodeSlices(), slices);
    try {
      return new RevisionRenderer(
          revision, byNode, NodeTemplate.templateIn(revision.getContent()), null);
    } catch (JsonProcessingException | ClassCastException e) {
      // The operator rendered it; a revision that does not parse was damaged in the status.
      return new RevisionRenderer(
          revision,
          byNode,
          Optional.empty(),
          "the accepted revision is not a JSON object: " + e.getMessage());
    }
  }

  /**
   * The revision rendered for {@code node}. A node without a slice of a network that declares
   * nodeSlices does not get it, whether or not the revision uses the slice.
   */
  public NodeConflist forNode(NodeValues node) {
    SliceOfNode slice = slices.of(node.name());
    List<String> lacking = new ArrayList<>();
    if (slice instanceof SliceOfNode.Lacking l) {
      lacking.add(l.messageFor(node.name()));
    }
    if (damaged != null) {
      return new NodeConflist.Waiting(damaged);
    }
    NodeTemplate.Result result =
        template.map(t -> NodeTemplate.render(t, node, slice)).orElse(null);
    if (result instanceof NodeTemplate.Result.Missing m) {
      m.messages().stream().filter(t -> !lacking.contains(t)).forEach(lacking::add);
    }
    if (!lacking.isEmpty()) {
      return new NodeConflist.Waiting(String.join("; ", lacking));
    }
    if (result == null) {
      // Not the revision's sha256: that covers its nodeSlices too (AcceptedRevision.identity).
      return new NodeConflist.Ready(revision.getContent(), sameOnEveryNodeSha256);
    }
    byte[] bytes = CanonicalJson.render(((NodeTemplate.Result.Rendered) result).conflist());
    return new NodeConflist.Ready(new String(bytes, StandardCharsets.UTF_8), Sha256.hex(bytes));
  }
}
