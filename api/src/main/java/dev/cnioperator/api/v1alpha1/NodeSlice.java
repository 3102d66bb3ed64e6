package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** The slice of spec.nodeSlices.subnet that one node holds. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NodeSlice {

  @JsonPropertyDescription("The Node's name.")
  private String node;

  @JsonPropertyDescription("The slice, as a CIDR.")
  private String slice;
}
