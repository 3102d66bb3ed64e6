package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;
import java.util.Objects;

/**
 * The accepted revision of a CniNetwork: its rendered configuration list and the nodes it goes to.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RenderedConfig {

  @JsonPropertyDescription("The network name inside content.")
  private String networkName;

  @JsonPropertyDescription("The cniVersion inside content.")
  private SpecVersion cniVersion;

  @JsonPropertyDescription("The node selector of this revision.")
  private LabelSelector nodeSelector;

  @JsonPropertyDescription("The file name on the node, \"<priority>-<networkName>.conflist\".")
  private String fileName;

  @JsonPropertyDescription(
      "The revision's identity, lower-case hex: the sha256 of content, followed when nodeSlices is set by a line \"nodeSlices subnet=<subnet> prefixLength=<n>\", so that an edit of nodeSlices alone is a new revision. (Written before nodeSlices were part of it: the sha256 of content alone.)")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  @JsonPropertyDescription("The configuration list exactly as written to the node.")
  private String content;

  @JsonPropertyDescription(
      "The plugin binaries content runs, each plugin's type and ipam.type, sorted and once each: what every node that holds it must have.")
  private List<String> pluginBinaries;

  @JsonPropertyDescription("The metadata.generation of the CniNetwork this was rendered from.")
  private Long generation;

  @JsonPropertyDescription(
      "The spec.nodeSlices of this revision: the subnet and slice length its $(node.slice...) values are cut from. A node gets this revision only with a slice of exactly these.")
  private NodeSlices nodeSlices;

  public String getNetworkName() {
    return networkName;
  }

  public void setNetworkName(String networkName) {
    this.networkName = networkName;
  }

  public RenderedConfig withNetworkName(String networkName) {
    this.networkName = networkName;
    return this;
  }

  public SpecVersion getCniVersion() {
    return cniVersion;
  }

  public void setCniVersion(SpecVersion cniVersion) {
    this.cniVersion = cniVersion;
  }

  public RenderedConfig withCniVersion(SpecVersion cniVersion) {
    this.cniVersion = cniVersion;
    return this;
  }

  public LabelSelector getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(LabelSelector nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public RenderedConfig withNodeSelector(LabelSelector nodeSelector) {
    this.nodeSelector = nodeSelector;
    return this;
  }

  public String getFileName() {
    return fileName;
  }

  public void setFileName(String fileName) {
    this.fileName = fileName;
  }

  public RenderedConfig withFileName(String fileName) {
    this.fileName = fileName;
    return this;
  }

  public String getSha256() {
    return sha256;
  }

  public void setSha256(String sha256) {
    this.sha256 = sha256;
  }

  public RenderedConfig withSha256(String sha256) {
    this.sha256 = sha256;
    return this;
  }

  public String getContent() {
    return content;
  }

  public void setContent(String content) {
    this.content = content;
  }

  public RenderedConfig withContent(String content) {
    this.content = content;
    return this;
  }

  public List<String> getPluginBinaries() {
    return pluginBinaries;
  }

  public void setPluginBinaries(List<String> pluginBinaries) {
    this.pluginBinaries = pluginBinaries;
  }

  public RenderedConfig withPluginBinaries(List<String> pluginBinaries) {
    this.pluginBinaries = pluginBinaries;
    return this;
  }

  public Long getGeneration() {
    return generation;
  }

  public void setGeneration(Long generation) {
    this.generation = generation;
  }

  public RenderedConfig withGeneration(Long generation) {
    this.generation = generation;
    return this;
  }

  public NodeSlices getNodeSlices() {
    return nodeSlices;
  }

  public void setNodeSlices(NodeSlices nodeSlices) {
    this.nodeSlices = nodeSlices;
  }

  public RenderedConfig withNodeSlices(NodeSlices nodeSlices) {
    this.nodeSlices = nodeSlices;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RenderedConfig other)) {
      return false;
    }
    return Objects.equals(networkName, other.networkName)
        && Objects.equals(cniVersion, other.cniVersion)
        && Objects.equals(nodeSelector, other.nodeSelector)
        && Objects.equals(fileName, other.fileName)
        && Objects.equals(sha256, other.sha256)
        && Objects.equals(content, other.content)
        && Objects.equals(pluginBinaries, other.pluginBinaries)
        && Objects.equals(generation, other.generation)
        && Objects.equals(nodeSlices, other.nodeSlices);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        networkName,
        cniVersion,
        nodeSelector,
        fileName,
        sha256,
        content,
        pluginBinaries,
        generation,
        nodeSlices);
  }

  @Override
  public String toString() {
    return "RenderedConfig{networkName="
        + networkName
        + ", cniVersion="
        + cniVersion
        + ", nodeSelector="
        + nodeSelector
        + ", fileName="
        + fileName
        + ", sha256="
        + sha256
        + ", content="
        + content
        + ", pluginBinaries="
        + pluginBinaries
        + ", generation="
        + generation
        + ", nodeSlices="
        + nodeSlices
        + "}";
  }
}
