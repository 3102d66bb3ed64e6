package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** Node counts of a CniNetwork, shown by kubectl get. */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  public Integer getSelected() {
    return selected;
  }

  public void setSelected(Integer selected) {
    this.selected = selected;
  }

  public NodeCounts withSelected(Integer selected) {
    this.selected = selected;
    return this;
  }

  public Integer getApplied() {
    return applied;
  }

  public void setApplied(Integer applied) {
    this.applied = applied;
  }

  public NodeCounts withApplied(Integer applied) {
    this.applied = applied;
    return this;
  }

  public Integer getHealthy() {
    return healthy;
  }

  public void setHealthy(Integer healthy) {
    this.healthy = healthy;
  }

  public NodeCounts withHealthy(Integer healthy) {
    this.healthy = healthy;
    return this;
  }

  public String getReady() {
    return ready;
  }

  public void setReady(String ready) {
    this.ready = ready;
  }

  public NodeCounts withReady(String ready) {
    this.ready = ready;
    return this;
  }

  public Integer getUncheckedAttachments() {
    return uncheckedAttachments;
  }

  public void setUncheckedAttachments(Integer uncheckedAttachments) {
    this.uncheckedAttachments = uncheckedAttachments;
  }

  public NodeCounts withUncheckedAttachments(Integer uncheckedAttachments) {
    this.uncheckedAttachments = uncheckedAttachments;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NodeCounts other)) {
      return false;
    }
    return Objects.equals(selected, other.selected)
        && Objects.equals(applied, other.applied)
        && Objects.equals(healthy, other.healthy)
        && Objects.equals(uncheckedAttachments, other.uncheckedAttachments)
        && Objects.equals(ready, other.ready);
  }

  @Override
  public int hashCode() {
    return Objects.hash(selected, applied, healthy, uncheckedAttachments, ready);
  }

  @Override
  public String toString() {
    return "NodeCounts{selected="
        + selected
        + ", applied="
        + applied
        + ", healthy="
        + healthy
        + ", uncheckedAttachments="
        + uncheckedAttachments
        + ", ready="
        + ready
        + "}";
  }
}
