package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** A file in a configuration directory that does not parse as CNI configuration. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class UnparsableFile {

  @JsonPropertyDescription("The file's path on the node.")
  private String file;

  @JsonPropertyDescription("Why it does not parse.")
  private String error;
}
