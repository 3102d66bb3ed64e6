package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Objects;

/** Live attachments of one network on one node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AttachmentSummary {

  @JsonPropertyDescription("Attachments in the runtime's cache for this network.")
  private Integer total;

  @JsonPropertyDescription("Attachments whose last CHECK succeeded.")
  private Integer healthy;

  @JsonPropertyDescription(
      "Attachments the agent could not CHECK (it could not learn their network namespace): neither healthy nor failing; uncheckedReason says why.")
  private Integer unchecked;

  @JsonPropertyDescription(
      "Why some attachments were not checked, and what would let the agent check them.")
  private String uncheckedReason;

  @JsonPropertyDescription("Attachments whose last CHECK failed, capped at 20.")
  @Size(max = 20)
  private List<FailingAttachment> failing;

  public Integer getTotal() {
    return total;
  }

  public void setTotal(Integer total) {
    this.total = total;
  }

  public AttachmentSummary withTotal(Integer total) {
    this.total = total;
    return this;
  }

  public Integer getHealthy() {
    return healthy;
  }

  public void setHealthy(Integer healthy) {
    this.healthy = healthy;
  }

  public AttachmentSummary withHealthy(Integer healthy) {
    this.healthy = healthy;
    return this;
  }

  public Integer getUnchecked() {
    return unchecked;
  }

  public void setUnchecked(Integer unchecked) {
    this.unchecked = unchecked;
  }

  public AttachmentSummary withUnchecked(Integer unchecked) {
    this.unchecked = unchecked;
    return this;
  }

  public String getUncheckedReason() {
    return uncheckedReason;
  }

  public void setUncheckedReason(String uncheckedReason) {
    this.uncheckedReason = uncheckedReason;
  }

  public AttachmentSummary withUncheckedReason(String uncheckedReason) {
    this.uncheckedReason = uncheckedReason;
    return this;
  }

  public List<FailingAttachment> getFailing() {
    return failing;
  }

  public void setFailing(List<FailingAttachment> failing) {
    this.failing = failing;
  }

  public AttachmentSummary withFailing(List<FailingAttachment> failing) {
    this.failing = failing;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AttachmentSummary other)) {
      return false;
    }
    return Objects.equals(total, other.total)
        && Objects.equals(healthy, other.healthy)
        && Objects.equals(unchecked, other.unchecked)
        && Objects.equals(uncheckedReason, other.uncheckedReason)
        && Objects.equals(failing, other.failing);
  }

  @Override
  public int hashCode() {
    return Objects.hash(total, healthy, unchecked, uncheckedReason, failing);
  }

  @Override
  public String toString() {
    return "AttachmentSummary{total="
        + total
        + ", healthy="
        + healthy
        + ", unchecked="
        + unchecked
        + ", uncheckedReason="
        + uncheckedReason
        + ", failing="
        + failing
        + "}";
  }
}
