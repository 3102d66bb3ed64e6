package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * One configuration list a node must hold, rendered by the operator for this node; or, when the
 * node lacks a value the network uses, why it cannot have it ({@code unavailable}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.unavailable) != (has(self.content) && has(self.sha256))",
    message = "either content and sha256, or unavailable")
public class NodeNetwork {

  @JsonPropertyDescription("The CniNetwork this comes from.")
  @Required
  private String name;

  @JsonPropertyDescription(
      "The uid of that CniNetwork. A network deleted and created again under the same name has"
          + " another uid, and its agent starts its history (schedules, cleanup counts, CHECK"
          + " failures already reported) afresh.")
  private String uid;

  @JsonPropertyDescription("File name in the CNI configuration directory.")
  @Required
  @Pattern("^[0-9]{2}-[a-zA-Z0-9][a-zA-Z0-9_.\\-]*\\.conflist$")
  private String fileName;

  @JsonPropertyDescription("Lower-case hex sha256 of content.")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  @JsonPropertyDescription(
      "The configuration list, byte for byte, rendered with this node's values.")
  private String content;

  @JsonPropertyDescription(
      "Set instead of content when this node lacks a value the network uses (a pod CIDR, a label,"
          + " an annotation, its slice of spec.nodeSlices): the node does not get the network, whatever it holds of it stays,"
          + " and its agent reports it Failed with this message.")
  private String unavailable;

  @JsonPropertyDescription("The CNI version of the configuration list.")
  private SpecVersion cniVersion;

  @JsonPropertyDescription("CHECK settings, with defaults filled in.")
  private NetworkCheck check;

  @JsonPropertyDescription("Cleanup settings, with defaults filled in; disableGC is in content.")
  private IpamCleanup ipamCleanup;

  @JsonPropertyDescription(
      "The CniNetwork revision this content is rendered from: the sha256 of the network's template (CniNetwork status.rendered, or status.rollout.stable while a rollout holds this node back).")
  @Pattern("^[a-f0-9]{64}$")
  private String revision;

  @JsonPropertyDescription(
      "How the agent proves a new content before the operator counts the node as updated, with defaults filled in.")
  private RolloutProbe probe;

  @JsonPropertyDescription(
      "The configuration directory the file goes to: Runtime (the container runtime's, the default) or Multus (Multus's own, read for config-less NetworkAttachmentDefinitions).")
  private ConfigDirectory directory;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public NodeNetwork withName(String name) {
    this.name = name;
    return this;
  }

  public String getUid() {
    return uid;
  }

  public void setUid(String uid) {
    this.uid = uid;
  }

  public NodeNetwork withUid(String uid) {
    this.uid = uid;
    return this;
  }

  public String getFileName() {
    return fileName;
  }

  public void setFileName(String fileName) {
    this.fileName = fileName;
  }

  public NodeNetwork withFileName(String fileName) {
    this.fileName = fileName;
    return this;
  }

  public String getSha256() {
    return sha256;
  }

  public void setSha256(String sha256) {
    this.sha256 = sha256;
  }

  public NodeNetwork withSha256(String sha256) {
    this.sha256 = sha256;
    return this;
  }

  public String getContent() {
    return content;
  }

  public void setContent(String content) {
    this.content = content;
  }

  public NodeNetwork withContent(String content) {
    this.content = content;
    return this;
  }

  public String getUnavailable() {
    return unavailable;
  }

  public void setUnavailable(String unavailable) {
    this.unavailable = unavailable;
  }

  public NodeNetwork withUnavailable(String unavailable) {
    this.unavailable = unavailable;
    return this;
  }

  public SpecVersion getCniVersion() {
    return cniVersion;
  }

  public void setCniVersion(SpecVersion cniVersion) {
    this.cniVersion = cniVersion;
  }

  public NodeNetwork withCniVersion(SpecVersion cniVersion) {
    this.cniVersion = cniVersion;
    return this;
  }

  public NetworkCheck getCheck() {
    return check;
  }

  public void setCheck(NetworkCheck check) {
    this.check = check;
  }

  public NodeNetwork withCheck(NetworkCheck check) {
    this.check = check;
    return this;
  }

  public IpamCleanup getIpamCleanup() {
    return ipamCleanup;
  }

  public void setIpamCleanup(IpamCleanup ipamCleanup) {
    this.ipamCleanup = ipamCleanup;
  }

  public NodeNetwork withIpamCleanup(IpamCleanup ipamCleanup) {
    this.ipamCleanup = ipamCleanup;
    return this;
  }

  public String getRevision() {
    return revision;
  }

  public void setRevision(String revision) {
    this.revision = revision;
  }

  public NodeNetwork withRevision(String revision) {
    this.revision = revision;
    return this;
  }

  public RolloutProbe getProbe() {
    return probe;
  }

  public void setProbe(RolloutProbe probe) {
    this.probe = probe;
  }

  public NodeNetwork withProbe(RolloutProbe probe) {
    this.probe = probe;
    return this;
  }

  public ConfigDirectory getDirectory() {
    return directory;
  }

  public void setDirectory(ConfigDirectory directory) {
    this.directory = directory;
  }

  public NodeNetwork withDirectory(ConfigDirectory directory) {
    this.directory = directory;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NodeNetwork other)) {
      return false;
    }
    return Objects.equals(name, other.name)
        && Objects.equals(uid, other.uid)
        && Objects.equals(fileName, other.fileName)
        && Objects.equals(sha256, other.sha256)
        && Objects.equals(content, other.content)
        && Objects.equals(unavailable, other.unavailable)
        && Objects.equals(cniVersion, other.cniVersion)
        && Objects.equals(check, other.check)
        && Objects.equals(ipamCleanup, other.ipamCleanup)
        && Objects.equals(revision, other.revision)
        && Objects.equals(probe, other.probe)
        && Objects.equals(directory, other.directory);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        name,
        uid,
        fileName,
        sha256,
        content,
        unavailable,
        cniVersion,
        check,
        ipamCleanup,
        revision,
        probe,
        directory);
  }

  @Override
  public String toString() {
    return "NodeNetwork{name="
        + name
        + ", uid="
        + uid
        + ", fileName="
        + fileName
        + ", sha256="
        + sha256
        + ", content="
        + content
        + ", unavailable="
        + unavailable
        + ", cniVersion="
        + cniVersion
        + ", check="
        + check
        + ", ipamCleanup="
        + ipamCleanup
        + ", revision="
        + revision
        + ", probe="
        + probe
        + ", directory="
        + directory
        + "}";
  }
}
