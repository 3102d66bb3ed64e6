package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.Objects;

/** A plugin binary to download onto nodes, for plugins the agent image does not bundle. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CniPluginSpec {

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

  public String getBinaryName() {
    return binaryName;
  }

  public void setBinaryName(String binaryName) {
    this.binaryName = binaryName;
  }

  public CniPluginSpec withBinaryName(String binaryName) {
    this.binaryName = binaryName;
    return this;
  }

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public CniPluginSpec withUrl(String url) {
    this.url = url;
    return this;
  }

  public String getSha256() {
    return sha256;
  }

  public void setSha256(String sha256) {
    this.sha256 = sha256;
  }

  public CniPluginSpec withSha256(String sha256) {
    this.sha256 = sha256;
    return this;
  }

  public LabelSelector getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(LabelSelector nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public CniPluginSpec withNodeSelector(LabelSelector nodeSelector) {
    this.nodeSelector = nodeSelector;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CniPluginSpec other)) {
      return false;
    }
    return Objects.equals(binaryName, other.binaryName)
        && Objects.equals(url, other.url)
        && Objects.equals(sha256, other.sha256)
        && Objects.equals(nodeSelector, other.nodeSelector);
  }

  @Override
  public int hashCode() {
    return Objects.hash(binaryName, url, sha256, nodeSelector);
  }

  @Override
  public String toString() {
    return "CniPluginSpec{binaryName="
        + binaryName
        + ", url="
        + url
        + ", sha256="
        + sha256
        + ", nodeSelector="
        + nodeSelector
        + "}";
  }
}
