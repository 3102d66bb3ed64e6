package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** The agent's report on one network of its node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeNetworkStatus {

  @JsonPropertyDescription("The CniNetwork.")
  @Required
  private String name;

  @JsonPropertyDescription("sha256 of the content on disk, when it was applied.")
  private String appliedSha256;

  @JsonPropertyDescription(
      "Applied, Failed (with message), Conflict (a file of that name the agent does not own) or Removed (the network was taken off this node and its file deleted).")
  private NetworkState state;

  @JsonPropertyDescription("Why the state is not Applied, in words a person can act on.")
  private String message;

  @JsonPropertyDescription("Live attachments of this network on the node and their CHECK outcome.")
  private AttachmentSummary attachments;

  @JsonPropertyDescription("IP reservations of this network on the node.")
  private IpamSummary ipam;

  @JsonPropertyDescription("When the last CHECK round ended (RFC 3339).")
  private String lastCheckTime;

  @JsonPropertyDescription(
      "Outcome of the CNI STATUS verb (1.1.0 networks): \"Available\", or the error the plugin returned.")
  private String pluginStatus;

  @JsonPropertyDescription(
      "The agent's probe of the content it applied: a probe attachment (ADD, CHECK, DEL in a namespace of its own), STATUS on 1.1.0, and a CHECK of the live attachments.")
  private ProbeReport probe;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public NodeNetworkStatus withName(String name) {
    this.name = name;
    return this;
  }

  public String getAppliedSha256() {
    return appliedSha256;
  }

  public void setAppliedSha256(String appliedSha256) {
    this.appliedSha256 = appliedSha256;
  }

  public NodeNetworkStatus withAppliedSha256(String appliedSha256) {
    this.appliedSha256 = appliedSha256;
    return this;
  }

  public NetworkState getState() {
    return state;
  }

  public void setState(NetworkState state) {
    this.state = state;
  }

  public NodeNetworkStatus withState(NetworkState state) {
    this.state = state;
    return this;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public NodeNetworkStatus withMessage(String message) {
    this.message = message;
    return this;
  }

  public AttachmentSummary getAttachments() {
    return attachments;
  }

  public void setAttachments(AttachmentSummary attachments) {
    this.attachments = attachments;
  }

  public NodeNetworkStatus withAttachments(AttachmentSummary attachments) {
    this.attachments = attachments;
    return this;
  }

  public IpamSummary getIpam() {
    return ipam;
  }

  public void setIpam(IpamSummary ipam) {
    this.ipam = ipam;
  }

  public NodeNetworkStatus withIpam(IpamSummary ipam) {
    this.ipam = ipam;
    return this;
  }

  public String getLastCheckTime() {
    return lastCheckTime;
  }

  public void setLastCheckTime(String lastCheckTime) {
    this.lastCheckTime = lastCheckTime;
  }

  public NodeNetworkStatus withLastCheckTime(String lastCheckTime) {
    this.lastCheckTime = lastCheckTime;
    return this;
  }

  public String getPluginStatus() {
    return pluginStatus;
  }

  public void setPluginStatus(String pluginStatus) {
    this.pluginStatus = pluginStatus;
  }

  public NodeNetworkStatus withPluginStatus(String pluginStatus) {
    this.pluginStatus = pluginStatus;
    return this;
  }

  public ProbeReport getProbe() {
    return probe;
  }

  public void setProbe(ProbeReport probe) {
    this.probe = probe;
  }

  public NodeNetworkStatus withProbe(ProbeReport probe) {
    this.probe = probe;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NodeNetworkStatus other)) {
      return false;
    }
    return Objects.equals(name, other.name)
        && Objects.equals(appliedSha256, other.appliedSha256)
        && Objects.equals(state, other.state)
        && Objects.equals(message, other.message)
        && Objects.equals(attachments, other.attachments)
        && Objects.equals(ipam, other.ipam)
        && Objects.equals(lastCheckTime, other.lastCheckTime)
        && Objects.equals(pluginStatus, other.pluginStatus)
        && Objects.equals(probe, other.probe);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        name, appliedSha256, state, message, attachments, ipam, lastCheckTime, pluginStatus, probe);
  }

  @Override
  public String toString() {
    return "NodeNetworkStatus{name="
        + name
        + ", appliedSha256="
        + appliedSha256
        + ", state="
        + state
        + ", message="
        + message
        + ", attachments="
        + attachments
        + ", ipam="
        + ipam
        + ", lastCheckTime="
        + lastCheckTime
        + ", pluginStatus="
        + pluginStatus
        + ", probe="
        + probe
        + "}";
  }
}
