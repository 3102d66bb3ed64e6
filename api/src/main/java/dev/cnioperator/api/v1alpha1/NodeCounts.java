package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** Node counts of a CniNetwork, shown by kubectl get. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NodeCounts {

  @JsonPropertyDescription(
      "Nodes whose labels match spec.nodeSelector and that hold no clashing network.")
  private Integer selected;

  @JsonPropertyDescription("Selected nodes whose agent reports the current sha256 applied.")
  private Integer applied;

  @JsonPropertyDescription(
      "Applied nodes whose agent proved the content they hold (its probe passed) and that report no failing attachments: nodes where pods of this network can start.")
  private Integer healthy;

  @JsonPropertyDescription(
      "Attachments the agents could not CHECK (their network namespace unknown), over all selected nodes; neither healthy nor failing.")
  private Integer uncheckedAttachments;

  @JsonPropertyDescription("\"healthy/selected\", for the printer column.")
  private String ready;
}
