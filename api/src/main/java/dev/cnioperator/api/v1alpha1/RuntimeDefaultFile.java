package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/**
 * The file the container runtime loads as its pod network, and whether a copy of one of this node's
 * networks in it (Multus inlines its primary network as a delegate) is that network as it is now.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class RuntimeDefaultFile {

  @JsonPropertyDescription(
      "The file the runtime loads as its pod network: the first .conf, .conflist or .json of its configuration directory in byte order.")
  private String fileName;

  @JsonPropertyDescription("The CNI name in that file.")
  private String networkName;

  @JsonPropertyDescription(
      "The network of this node that the file carries a copy of: Multus's configuration (the thick daemon's generated 00-multus.conf, or a thin install's file) holds its primary network inline as its first delegate, and the runtime's pods get that copy, not the network's own file.")
  private String copyOf;

  @JsonPropertyDescription(
      "Whether the copy is the network's file as it is now. false: pods get the copy's older configuration until its writer writes it again (Multus's thick daemon does when the network's file changes; a thin install only when its installer runs again).")
  private Boolean copyCurrent;

  @JsonPropertyDescription("Who wrote the file and what the runtime's pods get from it.")
  private String message;
}
