package dev.cnioperator.operator.template;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * What one node holds of a network's accepted revision: the revision's configuration list rendered
 * with that node's values, or why the node cannot have it. A revision without placeholders is the
 * same on every node.
 */
public sealed interface NodeConflist {

  /** The bytes this node gets, as text, with their sha256. */
  record Ready(String content, String sha256) implements NodeConflist {}

  /** The node lacks a value the revision uses; the message names the node and the value. */
  record Waiting(String message) implements NodeConflist {}

  /** {@code revision} (status.rendered of a CniNetwork) rendered for {@code node}. */
  static NodeConflist of(RenderedConfig revision, NodeValues node) {
    Optional<ObjectNode> template;
    try {
      template = NodeTemplate.templateIn(revision.getContent());
    } catch (JsonProcessingException | ClassCastException e) {
      // The operator rendered it; a revision that does not parse was damaged in the status.
      return new Waiting("the accepted revision is not a JSON object: " + e.getMessage());
    }
    if (template.isEmpty()) {
      return new Ready(revision.getContent(), revision.getSha256());
    }
    NodeTemplate.Result result = NodeTemplate.render(template.get(), node);
    if (result instanceof NodeTemplate.Result.Missing m) {
      return new Waiting(m.message());
    }
    byte[] bytes = CanonicalJson.render(((NodeTemplate.Result.Rendered) result).conflist());
    return new Ready(new String(bytes, StandardCharsets.UTF_8), Sha256.hex(bytes));
  }
}
