package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import lombok.Data;

/** Settings of the release of IP reservations held by attachments whose pod is gone. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class IpamCleanup extends KnownFields {

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
}
