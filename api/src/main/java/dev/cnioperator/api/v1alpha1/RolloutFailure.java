package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** The first node that failed to prove a revision, and the probe's error. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class RolloutFailure {

  @JsonPropertyDescription("The node.")
  private String node;

  @JsonPropertyDescription("The revision (template sha256) it failed to prove.")
  private String revision;

  @JsonPropertyDescription(
      "ProbeFailed: the node's agent reported that the revision failed its probe (or could not be applied); NoReport: the agent did not report on the revision within spec.rollout.progressDeadlineSeconds of its batch's start.")
  private String reason;

  @JsonPropertyDescription(
      "The probe's error as the agent reported it, or what the operator waited for.")
  private String message;

  @JsonPropertyDescription("When the operator saw the failure (RFC 3339).")
  private String time;
}
