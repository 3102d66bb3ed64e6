package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** Totals over a node's networks, for the printer columns of kubectl get. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NodeSummary {

  @JsonPropertyDescription("\"applied/desired\" networks.")
  private String networks;

  @JsonPropertyDescription("Attachments whose last CHECK failed, over all networks.")
  private Integer failingAttachments;

  @JsonPropertyDescription(
      "Attachments the agent could not CHECK (their network namespace unknown), over all networks; counted apart from failing.")
  private Integer uncheckedAttachments;

  @JsonPropertyDescription("Reservations found stale and not yet released, over all networks.")
  private Integer staleReservations;
}
