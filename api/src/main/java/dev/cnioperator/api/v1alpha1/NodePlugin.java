package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import lombok.Data;

/** One plugin binary a node must have. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NodePlugin extends KnownFields {

  @JsonPropertyDescription("Binary name in the CNI plugin directory.")
  @Required
  @Pattern(PluginNames.PATTERN)
  private String name;

  @JsonPropertyDescription(
      "Where it comes from: \"bundled\" (the agent image) or the name of the CniPlugin that provides it.")
  @Required
  private String source;

  @JsonPropertyDescription("Download address, for a CniPlugin source.")
  private String url;

  @JsonPropertyDescription("Expected lower-case hex sha256 of the binary, for a CniPlugin source.")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;
}
