package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.LabelSelector;
import lombok.Data;

/** A plugin binary to download onto nodes, for plugins the agent image does not bundle. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class CniPluginSpec extends KnownFields {

  @JsonPropertyDescription("File name in the CNI plugin directory; it is the 'type' networks use.")
  @Required
  @Pattern(PluginNames.PATTERN)
  @Size(max = PluginNames.MAX_LENGTH)
  private String binaryName;

  @JsonPropertyDescription("https (or http) address of the binary.")
  @Required
  @Pattern("^https?://.+")
  private String url;

  @JsonPropertyDescription(
      "Lower-case hex sha256 the download must have; a mismatch is refused and the old binary stays.")
  @Required
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  @JsonPropertyDescription(
      "Nodes that get this binary when a network needs it; empty selects every node.")
  private LabelSelector nodeSelector;
}
