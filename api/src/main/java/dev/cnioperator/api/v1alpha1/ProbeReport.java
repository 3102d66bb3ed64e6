package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import lombok.Data;

/** The agent's proof (or not) that the revision it applied works on its node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
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
}
