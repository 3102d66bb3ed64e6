package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import lombok.Data;

/** A plugin binary present on a node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class InstalledPlugin {

  @JsonPropertyDescription("Binary name.")
  private String name;

  @JsonPropertyDescription("sha256 of the binary.")
  private String sha256;

  @JsonPropertyDescription("CNI versions the binary reported for VERSION.")
  private List<String> supportedVersions;

  @JsonPropertyDescription(
      "\"agent\" when the agent installed it, \"external\" when it was there before.")
  private String owner;
}
