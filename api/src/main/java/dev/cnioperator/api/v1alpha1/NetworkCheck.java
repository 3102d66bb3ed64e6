package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import lombok.Data;

/** Settings of the periodic CNI CHECK of a network's attachments. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NetworkCheck extends KnownFields {

  @JsonPropertyDescription(
      "Whether attachments are CHECKed at all (needs cniVersion 0.4.0 or later and disableCheck unset).")
  @Default("" + CniNetworkDefaults.CHECK_ENABLED)
  private Boolean enabled;

  @JsonPropertyDescription("Seconds between two CHECK rounds on a node.")
  @Min(5)
  @Max(86400)
  @Default("" + CniNetworkDefaults.CHECK_INTERVAL_SECONDS)
  private Integer intervalSeconds;
}
