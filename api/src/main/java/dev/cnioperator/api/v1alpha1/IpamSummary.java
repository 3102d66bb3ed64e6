package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** IP reservations of one network on one node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class IpamSummary {

  @JsonPropertyDescription("Reservations the IPAM store holds.")
  private Integer reservations;

  @JsonPropertyDescription(
      "Reservations found stale and waiting for the grace period (or for dryRun to be lifted).")
  private Integer stale;

  @JsonPropertyDescription("Reservations released since the agent started.")
  private Integer reclaimed;
}
