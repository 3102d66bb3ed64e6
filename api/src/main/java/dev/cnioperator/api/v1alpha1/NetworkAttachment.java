package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/**
 * How pods attach to a network. Absent: the file goes into the container runtime's configuration
 * directory, where the first file is the node's default (pod) network.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NetworkAttachment extends KnownFields {

  @JsonPropertyDescription(
      "Makes this a Multus secondary network: its file goes only into Multus's configuration directory (never the runtime's, so it can never become a node's default network), and pods ask for it with the k8s.v1.cni.cncf.io/networks annotation.")
  private MultusAttachment multus;
}
