package dev.cnioperator.operator.template;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.operator.slices.SliceOfNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one node holds of a network's accepted revision: the revision's configuration list rendered
 * with that node's values, or why the node cannot have it. A revision without placeholders is the
 * same on every node.
 */
public sealed interface NodeConflist {

  /** The bytes this node gets, as text, with their sha256. */
  record Ready(String content, String sha256) implements NodeConflist {}

  /**
   * The node lacks a value the revision uses, or its slice of the revision's nodeSlices; the
   * message names the node and the value.
   */
  record Waiting(String message) implements NodeConflist {}

  /**
   * {@code revision} (status.rendered of a CniNetwork) rendered for {@code node}, whose slice of
   * the revision's nodeSlices is the one {@code slices} (that network's status.slices) lists. A
   * node without a slice of a network that declares nodeSlices does not get it, whether or not the
   * revision uses the slice.
   */
  static NodeConflist of(RenderedConfig revision, NodeValues node, List<NodeSlice> slices) {
    SliceOfNode slice = SliceOfNode.of(revision.getNodeSlices(), slices, node.name());
    List<String> lacking = new ArrayList<>();
    if (slice instanceof SliceOfNode.Lacking l) {
      lacking.add(l.messageFor(node.name()));
    }
    Optional<ObjectNode> template;
    try {
      template = NodeTemplate.templateIn(revision.getContent());
    } catch (JsonProcessingException | ClassCastException e) {
      // The operator rendered it; a revision that does not parse was damaged in the status.
      return new Waiting("the accepted revision is not a JSON object: " + e.getMessage());
    }
    NodeTemplate.Result result =
        template.isEmpty() ? null : NodeTemplate.render(template.get(), node, slice);
    if (result instanceof NodeTemplate.Result.Missing m) {
      m.messages().stream().filter(t -> !lacking.contains(t)).forEach(lacking::add);
    }
    if (!lacking.isEmpty()) {
      return new Waiting(String.join("; ", lacking));
    }
    if (result == null) {
      // Not the revision's sha256: that covers its nodeSlices too (AcceptedRevision.identity).
      return new Ready(
          revision.getContent(),
          Sha256.hex(revision.getContent().getBytes(StandardCharsets.UTF_8)));
    }
    byte[] bytes = CanonicalJson.render(((NodeTemplate.Result.Rendered) result).conflist());
    return new Ready(new String(bytes, StandardCharsets.UTF_8), Sha256.hex(bytes));
  }
}
