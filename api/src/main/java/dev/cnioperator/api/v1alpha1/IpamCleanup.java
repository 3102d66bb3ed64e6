package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Objects;

/** Settings of the release of IP reservations held by attachments whose pod is gone. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class IpamCleanup {

  @JsonPropertyDescription(
      "Whether stale attachments are deleted (DEL through the chain; never GC, which only the container runtime may send).")
  @Default("" + CniNetworkDefaults.CLEANUP_ENABLED)
  private Boolean enabled;

  @JsonPropertyDescription(
      "How long an attachment must be seen stale, in consecutive fresh reads, before it is deleted.")
  @Min(0)
  @Max(604800)
  @Default("" + CniNetworkDefaults.CLEANUP_GRACE_PERIOD_SECONDS)
  private Integer gracePeriodSeconds;

  @JsonPropertyDescription(
      "When true, stale attachments are only reported in the CniNode status, never deleted.")
  @Default("" + CniNetworkDefaults.CLEANUP_DRY_RUN)
  private Boolean dryRun;

  @JsonPropertyDescription(
      "The largest share (0 to 1) of a node's attachments of this network deleted in one round; more stale than that is reported and waits, as a guard against a wrong source of truth.")
  @Min(0)
  @Max(1)
  @Default("" + CniNetworkDefaults.CLEANUP_MAX_DELETE_FRACTION)
  private Double maxDeleteFraction;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public IpamCleanup withEnabled(Boolean enabled) {
    this.enabled = enabled;
    return this;
  }

  public Integer getGracePeriodSeconds() {
    return gracePeriodSeconds;
  }

  public void setGracePeriodSeconds(Integer gracePeriodSeconds) {
    this.gracePeriodSeconds = gracePeriodSeconds;
  }

  public IpamCleanup withGracePeriodSeconds(Integer gracePeriodSeconds) {
    this.gracePeriodSeconds = gracePeriodSeconds;
    return this;
  }

  public Boolean getDryRun() {
    return dryRun;
  }

  public void setDryRun(Boolean dryRun) {
    this.dryRun = dryRun;
  }

  public IpamCleanup withDryRun(Boolean dryRun) {
    this.dryRun = dryRun;
    return this;
  }

  public Double getMaxDeleteFraction() {
    return maxDeleteFraction;
  }

  public void setMaxDeleteFraction(Double maxDeleteFraction) {
    this.maxDeleteFraction = maxDeleteFraction;
  }

  public IpamCleanup withMaxDeleteFraction(Double maxDeleteFraction) {
    this.maxDeleteFraction = maxDeleteFraction;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof IpamCleanup other)) {
      return false;
    }
    return Objects.equals(enabled, other.enabled)
        && Objects.equals(gracePeriodSeconds, other.gracePeriodSeconds)
        && Objects.equals(dryRun, other.dryRun)
        && Objects.equals(maxDeleteFraction, other.maxDeleteFraction);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, gracePeriodSeconds, dryRun, maxDeleteFraction);
  }

  @Override
  public String toString() {
    return "IpamCleanup{enabled="
        + enabled
        + ", gracePeriodSeconds="
        + gracePeriodSeconds
        + ", dryRun="
        + dryRun
        + ", maxDeleteFraction="
        + maxDeleteFraction
        + "}";
  }
}
