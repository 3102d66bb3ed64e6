package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The first node that failed to prove a revision, and the probe's error. */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  public String getNode() {
    return node;
  }

  public void setNode(String node) {
    this.node = node;
  }

  public RolloutFailure withNode(String node) {
    this.node = node;
    return this;
  }

  public String getRevision() {
    return revision;
  }

  public void setRevision(String revision) {
    this.revision = revision;
  }

  public RolloutFailure withRevision(String revision) {
    this.revision = revision;
    return this;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public RolloutFailure withReason(String reason) {
    this.reason = reason;
    return this;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public RolloutFailure withMessage(String message) {
    this.message = message;
    return this;
  }

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  public RolloutFailure withTime(String time) {
    this.time = time;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RolloutFailure other)) {
      return false;
    }
    return Objects.equals(node, other.node)
        && Objects.equals(revision, other.revision)
        && Objects.equals(reason, other.reason)
        && Objects.equals(message, other.message)
        && Objects.equals(time, other.time);
  }

  @Override
  public int hashCode() {
    return Objects.hash(node, revision, reason, message, time);
  }

  @Override
  public String toString() {
    return "RolloutFailure{node="
        + node
        + ", revision="
        + revision
        + ", reason="
        + reason
        + ", message="
        + message
        + ", time="
        + time
        + "}";
  }
}
