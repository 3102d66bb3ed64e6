package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import java.util.Objects;

/** How a node proves a new revision of a network before it counts as done. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutProbe {

  @JsonPropertyDescription(
      "Whether the agent makes a probe attachment (ADD, CHECK, DEL in a network namespace of its own) with the new revision. Turn it off for IPAM that must not hand out a probe address, such as dhcp; then STATUS (1.1.0) and a CHECK of the live attachments alone prove the revision.")
  @Default("" + CniNetworkDefaults.ROLLOUT_PROBE_ENABLED)
  private Boolean enabled;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public RolloutProbe withEnabled(Boolean enabled) {
    this.enabled = enabled;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof RolloutProbe other && Objects.equals(enabled, other.enabled));
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(enabled);
  }

  @Override
  public String toString() {
    return "RolloutProbe{enabled=" + enabled + "}";
  }
}
