package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** A live attachment that runs an older chain than the network's file holds now. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class OlderChainPod {

  @JsonPropertyDescription("The pod's namespace, from the attachment's CNI_ARGS.")
  private String namespace;

  @JsonPropertyDescription("The pod's name, from the attachment's CNI_ARGS.")
  private String pod;

  @JsonPropertyDescription(
      "How its chain differs: added with an older revision, or without plugins the file now chains.")
  private String why;
}
