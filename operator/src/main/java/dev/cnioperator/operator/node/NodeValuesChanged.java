package dev.cnioperator.operator.node;

import dev.cnioperator.operator.template.NodeValues;
import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/**
 * Only changes of what a network can use of a Node matter here ({@link NodeValues}: labels,
 * annotations, pod CIDRs, InternalIP addresses) and a new uid (the CniNode's owner); kubelet
 * heartbeats and condition updates do not.
 */
public final class NodeValuesChanged implements OnUpdateFilter<Node> {
  @Override
  public boolean accept(Node newNode, Node oldNode) {
    return !Objects.equals(newNode.getMetadata().getUid(), oldNode.getMetadata().getUid())
        || !NodeValues.of(newNode).equals(NodeValues.of(oldNode));
  }
}
