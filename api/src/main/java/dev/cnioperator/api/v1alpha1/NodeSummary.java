package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** Totals over a node's networks, for the printer columns of kubectl get. */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  public String getNetworks() {
    return networks;
  }

  public void setNetworks(String networks) {
    this.networks = networks;
  }

  public NodeSummary withNetworks(String networks) {
    this.networks = networks;
    return this;
  }

  public Integer getFailingAttachments() {
    return failingAttachments;
  }

  public void setFailingAttachments(Integer failingAttachments) {
    this.failingAttachments = failingAttachments;
  }

  public NodeSummary withFailingAttachments(Integer failingAttachments) {
    this.failingAttachments = failingAttachments;
    return this;
  }

  public Integer getUncheckedAttachments() {
    return uncheckedAttachments;
  }

  public void setUncheckedAttachments(Integer uncheckedAttachments) {
    this.uncheckedAttachments = uncheckedAttachments;
  }

  public NodeSummary withUncheckedAttachments(Integer uncheckedAttachments) {
    this.uncheckedAttachments = uncheckedAttachments;
    return this;
  }

  public Integer getStaleReservations() {
    return staleReservations;
  }

  public void setStaleReservations(Integer staleReservations) {
    this.staleReservations = staleReservations;
  }

  public NodeSummary withStaleReservations(Integer staleReservations) {
    this.staleReservations = staleReservations;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NodeSummary other)) {
      return false;
    }
    return Objects.equals(networks, other.networks)
        && Objects.equals(failingAttachments, other.failingAttachments)
        && Objects.equals(uncheckedAttachments, other.uncheckedAttachments)
        && Objects.equals(staleReservations, other.staleReservations);
  }

  @Override
  public int hashCode() {
    return Objects.hash(networks, failingAttachments, uncheckedAttachments, staleReservations);
  }

  @Override
  public String toString() {
    return "NodeSummary{networks="
        + networks
        + ", failingAttachments="
        + failingAttachments
        + ", uncheckedAttachments="
        + uncheckedAttachments
        + ", staleReservations="
        + staleReservations
        + "}";
  }
}
