package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import lombok.Data;

/** How a node proves a new revision of a network before it counts as done. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class RolloutProbe extends KnownFields {

  @JsonPropertyDescription(
      "Whether the agent makes a probe attachment (ADD, CHECK, DEL in a network namespace of its own) with the new revision. Turn it off for IPAM that must not hand out a probe address, such as dhcp; then STATUS (1.1.0) and a CHECK of the live attachments alone prove the revision.")
  @Default("" + CniNetworkDefaults.ROLLOUT_PROBE_ENABLED)
  private Boolean enabled;
}
