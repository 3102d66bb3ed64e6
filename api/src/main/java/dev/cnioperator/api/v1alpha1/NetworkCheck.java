package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Objects;

/** Settings of the periodic CNI CHECK of a network's attachments. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NetworkCheck {

  @JsonPropertyDescription(
      "Whether attachments are CHECKed at all (needs cniVersion 0.4.0 or later and disableCheck unset).")
  @Default("" + CniNetworkDefaults.CHECK_ENABLED)
  private Boolean enabled;

  @JsonPropertyDescription("Seconds between two CHECK rounds on a node.")
  @Min(5)
  @Max(86400)
  @Default("" + CniNetworkDefaults.CHECK_INTERVAL_SECONDS)
  private Integer intervalSeconds;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public NetworkCheck withEnabled(Boolean enabled) {
    this.enabled = enabled;
    return this;
  }

  public Integer getIntervalSeconds() {
    return intervalSeconds;
  }

  public void setIntervalSeconds(Integer intervalSeconds) {
    this.intervalSeconds = intervalSeconds;
  }

  public NetworkCheck withIntervalSeconds(Integer intervalSeconds) {
    this.intervalSeconds = intervalSeconds;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NetworkCheck other)) {
      return false;
    }
    return Objects.equals(enabled, other.enabled)
        && Objects.equals(intervalSeconds, other.intervalSeconds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, intervalSeconds);
  }

  @Override
  public String toString() {
    return "NetworkCheck{enabled=" + enabled + ", intervalSeconds=" + intervalSeconds + "}";
  }
}
