package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * What the node's container runtime itself says about the pod network: the NetworkReady condition
 * of its CRI Status answer, beside the plugins' own STATUS in each network.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  public String getEndpoint() {
    return endpoint;
  }

  public void setEndpoint(String endpoint) {
    this.endpoint = endpoint;
  }

  public RuntimeNetwork withEndpoint(String endpoint) {
    this.endpoint = endpoint;
    return this;
  }

  public Boolean getNetworkReady() {
    return networkReady;
  }

  public void setNetworkReady(Boolean networkReady) {
    this.networkReady = networkReady;
  }

  public RuntimeNetwork withNetworkReady(Boolean networkReady) {
    this.networkReady = networkReady;
    return this;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public RuntimeNetwork withReason(String reason) {
    this.reason = reason;
    return this;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public RuntimeNetwork withMessage(String message) {
    this.message = message;
    return this;
  }

  public String getLoadedNetwork() {
    return loadedNetwork;
  }

  public void setLoadedNetwork(String loadedNetwork) {
    this.loadedNetwork = loadedNetwork;
  }

  public RuntimeNetwork withLoadedNetwork(String loadedNetwork) {
    this.loadedNetwork = loadedNetwork;
    return this;
  }

  public String getConfDir() {
    return confDir;
  }

  public void setConfDir(String confDir) {
    this.confDir = confDir;
  }

  public RuntimeNetwork withConfDir(String confDir) {
    this.confDir = confDir;
    return this;
  }

  public String getLoadedSha256() {
    return loadedSha256;
  }

  public void setLoadedSha256(String loadedSha256) {
    this.loadedSha256 = loadedSha256;
  }

  public RuntimeNetwork withLoadedSha256(String loadedSha256) {
    this.loadedSha256 = loadedSha256;
    return this;
  }

  public String getLastTransitionTime() {
    return lastTransitionTime;
  }

  public void setLastTransitionTime(String lastTransitionTime) {
    this.lastTransitionTime = lastTransitionTime;
  }

  public RuntimeNetwork withLastTransitionTime(String lastTransitionTime) {
    this.lastTransitionTime = lastTransitionTime;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RuntimeNetwork other)) {
      return false;
    }
    return Objects.equals(endpoint, other.endpoint)
        && Objects.equals(networkReady, other.networkReady)
        && Objects.equals(reason, other.reason)
        && Objects.equals(message, other.message)
        && Objects.equals(loadedNetwork, other.loadedNetwork)
        && Objects.equals(loadedSha256, other.loadedSha256)
        && Objects.equals(confDir, other.confDir)
        && Objects.equals(lastTransitionTime, other.lastTransitionTime);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        endpoint,
        networkReady,
        reason,
        message,
        loadedNetwork,
        loadedSha256,
        confDir,
        lastTransitionTime);
  }

  @Override
  public String toString() {
    return "RuntimeNetwork{endpoint="
        + endpoint
        + ", networkReady="
        + networkReady
        + ", reason="
        + reason
        + ", message="
        + message
        + ", loadedNetwork="
        + loadedNetwork
        + ", loadedSha256="
        + loadedSha256
        + ", confDir="
        + confDir
        + ", lastTransitionTime="
        + lastTransitionTime
        + "}";
  }
}
