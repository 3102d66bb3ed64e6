package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** IP reservations of one network on one node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IpamSummary {

  @JsonPropertyDescription("Reservations the IPAM store holds.")
  private Integer reservations;

  @JsonPropertyDescription(
      "Reservations found stale and waiting for the grace period (or for dryRun to be lifted).")
  private Integer stale;

  @JsonPropertyDescription("Reservations released since the agent started.")
  private Integer reclaimed;

  public Integer getReservations() {
    return reservations;
  }

  public void setReservations(Integer reservations) {
    this.reservations = reservations;
  }

  public IpamSummary withReservations(Integer reservations) {
    this.reservations = reservations;
    return this;
  }

  public Integer getStale() {
    return stale;
  }

  public void setStale(Integer stale) {
    this.stale = stale;
  }

  public IpamSummary withStale(Integer stale) {
    this.stale = stale;
    return this;
  }

  public Integer getReclaimed() {
    return reclaimed;
  }

  public void setReclaimed(Integer reclaimed) {
    this.reclaimed = reclaimed;
  }

  public IpamSummary withReclaimed(Integer reclaimed) {
    this.reclaimed = reclaimed;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof IpamSummary other)) {
      return false;
    }
    return Objects.equals(reservations, other.reservations)
        && Objects.equals(stale, other.stale)
        && Objects.equals(reclaimed, other.reclaimed);
  }

  @Override
  public int hashCode() {
    return Objects.hash(reservations, stale, reclaimed);
  }

  @Override
  public String toString() {
    return "IpamSummary{reservations="
        + reservations
        + ", stale="
        + stale
        + ", reclaimed="
        + reclaimed
        + "}";
  }
}
