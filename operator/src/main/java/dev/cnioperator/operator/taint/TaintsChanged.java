package dev.cnioperator.operator.taint;

import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/** Of a Node's updates, only a change of its taints (or a new node of the name) matters here. */
public final class TaintsChanged implements OnUpdateFilter<Node> {
  @Override
  public boolean accept(Node newNode, Node oldNode) {
    return !Objects.equals(newNode.getMetadata().getUid(), oldNode.getMetadata().getUid())
        || !Objects.equals(taints(newNode), taints(oldNode));
  }

  private static Object taints(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getTaints();
  }
}
