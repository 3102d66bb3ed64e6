package dev.cnioperator.operator.node;

import io.fabric8.kubernetes.api.model.Node;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/** Only label changes of a Node matter here; kubelet heartbeats and status updates do not. */
public final class NodeLabelsChanged implements OnUpdateFilter<Node> {
  @Override
  public boolean accept(Node newNode, Node oldNode) {
    return !Objects.equals(newNode.getMetadata().getLabels(), oldNode.getMetadata().getLabels())
        || !Objects.equals(newNode.getMetadata().getUid(), oldNode.getMetadata().getUid());
  }
}
