package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.Objects;

/** The agent's proof (or not) that the revision it applied works on its node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ProbeReport {

  @JsonPropertyDescription(
      "The sha256 of the content the probe ran with (appliedSha256 when it is current).")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  @JsonPropertyDescription("Passed, or Failed with message.")
  private ProbeResult result;

  @JsonPropertyDescription(
      "The step that failed (ADD, CHECK, DEL, STATUS, or a live attachment's CHECK) and the plugin's error.")
  private String message;

  @JsonPropertyDescription("When the probe ended (RFC 3339).")
  private String time;

  public String getSha256() {
    return sha256;
  }

  public void setSha256(String sha256) {
    this.sha256 = sha256;
  }

  public ProbeReport withSha256(String sha256) {
    this.sha256 = sha256;
    return this;
  }

  public ProbeResult getResult() {
    return result;
  }

  public void setResult(ProbeResult result) {
    this.result = result;
  }

  public ProbeReport withResult(ProbeResult result) {
    this.result = result;
    return this;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public ProbeReport withMessage(String message) {
    this.message = message;
    return this;
  }

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  public ProbeReport withTime(String time) {
    this.time = time;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ProbeReport other)) {
      return false;
    }
    return Objects.equals(sha256, other.sha256)
        && Objects.equals(result, other.result)
        && Objects.equals(message, other.message)
        && Objects.equals(time, other.time);
  }

  @Override
  public int hashCode() {
    return Objects.hash(sha256, result, message, time);
  }

  @Override
  public String toString() {
    return "ProbeReport{sha256="
        + sha256
        + ", result="
        + result
        + ", message="
        + message
        + ", time="
        + time
        + "}";
  }
}
