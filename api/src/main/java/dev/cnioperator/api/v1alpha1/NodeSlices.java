package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/**
 * One shared subnet cut into disjoint slices, one per node the network lands on, so a node-local
 * IPAM (host-local) on every node of one L2 segment never hands out an address another node has.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeSlices {
  // The subnet is checked by the operator (Accepted=False naming the field): the API server's CEL
  // CIDR functions arrive in Kubernetes 1.31, and the chart supports 1.30.

  @JsonPropertyDescription(
      "The subnet shared by every node of the network, as a CIDR (10.200.16.0/20, fd00:10::/56).")
  @Required
  private String subnet;

  @JsonPropertyDescription(
      "The prefix length of each node's slice (26: 64 addresses a node). The operator gives each selected node one slice, keeps it across restarts and relabels, frees it when the node leaves, and lists the slices in status.slices. Per-node values: $(node.slice), $(node.slice.rangeStart), $(node.slice.rangeEnd).")
  @Required
  @Min(1)
  @Max(128)
  private Integer prefixLength;

  public String getSubnet() {
    return subnet;
  }

  public void setSubnet(String subnet) {
    this.subnet = subnet;
  }

  public NodeSlices withSubnet(String subnet) {
    this.subnet = subnet;
    return this;
  }

  public Integer getPrefixLength() {
    return prefixLength;
  }

  public void setPrefixLength(Integer prefixLength) {
    this.prefixLength = prefixLength;
  }

  public NodeSlices withPrefixLength(Integer prefixLength) {
    this.prefixLength = prefixLength;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof NodeSlices other
        && Objects.equals(subnet, other.subnet)
        && Objects.equals(prefixLength, other.prefixLength);
  }

  @Override
  public int hashCode() {
    return Objects.hash(subnet, prefixLength);
  }

  @Override
  public String toString() {
    return "NodeSlices{" + "subnet=" + subnet + ", prefixLength=" + prefixLength + "}";
  }
}
