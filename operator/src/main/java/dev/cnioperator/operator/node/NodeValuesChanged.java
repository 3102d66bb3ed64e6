package dev.cnioperator.operator.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import java.util.Objects;

/**
 * Only changes of what a network can use of a Node matter here (labels, annotations, pod CIDRs,
 * addresses, a new uid); kubelet heartbeats and condition updates do not.
 */
public final class NodeValuesChanged implements OnUpdateFilter<Node> {
  @Override
  public boolean accept(Node newNode, Node oldNode) {
    return !Objects.equals(newNode.getMetadata().getLabels(), oldNode.getMetadata().getLabels())
        || !Objects.equals(
            newNode.getMetadata().getAnnotations(), oldNode.getMetadata().getAnnotations())
        || !Objects.equals(newNode.getMetadata().getUid(), oldNode.getMetadata().getUid())
        || !Objects.equals(podCidr(newNode.getSpec()), podCidr(oldNode.getSpec()))
        || !Objects.equals(podCidrs(newNode.getSpec()), podCidrs(oldNode.getSpec()))
        || !Objects.equals(addresses(newNode.getStatus()), addresses(oldNode.getStatus()));
  }

  private static Object podCidr(NodeSpec spec) {
    return spec == null ? null : spec.getPodCIDR();
  }

  private static Object podCidrs(NodeSpec spec) {
    return spec == null ? null : spec.getPodCIDRs();
  }

  private static Object addresses(NodeStatus status) {
    return status == null ? null : status.getAddresses();
  }
}
