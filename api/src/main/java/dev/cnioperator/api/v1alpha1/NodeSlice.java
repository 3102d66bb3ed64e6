package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The slice of spec.nodeSlices.subnet that one node holds. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeSlice {

  @JsonPropertyDescription("The Node's name.")
  private String node;

  @JsonPropertyDescription("The slice, as a CIDR.")
  private String slice;

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public NodeSlice withNode(String node) {
    this.node = node;
    return this;
  }

  public String getSlice() {
    return slice;
  }

  public void setSlice(String slice) {
    this.slice = slice;
  }

  public NodeSlice withSlice(String slice) {
    this.slice = slice;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof NodeSlice other
        && Objects.equals(node, other.node)
        && Objects.equals(slice, other.slice);
  }

  @Override
  public int hashCode() {
    return Objects.hash(node, slice);
  }

  @Override
  public String toString() {
    return "NodeSlice{" + "node=" + node + ", slice=" + slice + "}";
  }
}
