package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import lombok.Data;

/**
 * One shared subnet cut into disjoint slices, one per node the network lands on, so a node-local
 * IPAM (host-local) on every node of one L2 segment never hands out an address another node has.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NodeSlices extends KnownFields {
  // The subnet is checked by the operator (Accepted=False naming the field), which cuts it into
  // slices anyway. The CEL CIDR functions (Kubernetes 1.31, below the chart's floor since it is
  // 1.35) could refuse a malformed one at the door as well; not done yet.

  @JsonPropertyDescription(
      "The subnet shared by every node of the network, as a CIDR with no host bits (10.200.16.0/20, fd00:10::/56); checked by the operator (Accepted=False, reason InvalidNodeSlices). An edit is a new revision, rolled out in stages (spec.rollout): a node gets its slice of the new subnet when the rollout admits it and keeps its old slice until then, or again after a rollback. No node gets a new slice that overlaps another node's old one while the old ones are in use; once the rollout completes they are freed, but running pods keep the addresses of their old slice until they restart: restart a node's pods once it holds the new revision, or choose a subnet beside the old one.")
  @Required
  private String subnet;

  @JsonPropertyDescription(
      "The prefix length of each node's slice (26: 64 addresses a node): longer than the subnet's, at most 30 (IPv4) or 126 (IPv6), and at most 16 more than the subnet's (65536 slices). The operator gives each node the network is placed on the lowest free slice and lists it in status.slices; the node keeps it across operator restarts and relabels that keep it selected. A node that stops matching keeps its slice until its agent has removed the network's file (or the Node is deleted): pods still running there keep their addresses, so drain a node before it stops matching. An edit gives every node a new slice (see subnet). Per-node values: $(node.slice), $(node.slice.rangeStart), $(node.slice.rangeEnd).")
  @Required
  @Min(1)
  @Max(128)
  private Integer prefixLength;
}
