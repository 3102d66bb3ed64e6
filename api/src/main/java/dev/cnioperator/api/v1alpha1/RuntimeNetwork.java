package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/**
 * What the node's container runtime itself says about the pod network: the NetworkReady condition
 * of its CRI Status answer, beside the plugins' own STATUS in each network.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class RuntimeNetwork {

  @JsonPropertyDescription(
      "The runtime's CRI socket the agent asked, for example /run/containerd/containerd.sock.")
  private String endpoint;

  @JsonPropertyDescription(
      "The status of the runtime's NetworkReady condition; false also when the runtime cannot be reached.")
  private Boolean networkReady;

  @JsonPropertyDescription(
      "Why the network is not ready, as the runtime says (for containerd NetworkPluginNotReady), or RuntimeUnreachable.")
  private String reason;

  @JsonPropertyDescription("The runtime's message for a network that is not ready.")
  private String message;

  @JsonPropertyDescription(
      "The network the runtime has loaded as its pod network, where the runtime says (containerd does in its verbose CRI Status; CRI-O does not).")
  private String loadedNetwork;

  @JsonPropertyDescription(
      "The sha256 of the configuration the runtime has loaded as loadedNetwork; equal to the network's appliedSha256 once the runtime has picked up the agent's file.")
  private String loadedSha256;

  @JsonPropertyDescription(
      "The directory the runtime loads CNI configuration from, where the runtime says (containerd's PluginConfDir). When it is not the agent's conf dir, no pod on the node gets the agent's networks: the agent is not ready and its probes fail, naming both.")
  private String confDir;

  @JsonPropertyDescription("When networkReady last changed, as the agent saw it (RFC 3339).")
  private String lastTransitionTime;
}
