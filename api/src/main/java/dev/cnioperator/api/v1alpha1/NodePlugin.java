package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** One plugin binary a node must have. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodePlugin {

  @JsonPropertyDescription("Binary name in the CNI plugin directory.")
  @Required
  @Pattern(PluginNames.PATTERN)
  private String name;

  @JsonPropertyDescription(
      "Where it comes from: \"bundled\" (the agent image) or the name of the CniPlugin that provides it.")
  @Required
  private String source;

  @JsonPropertyDescription("Download address, for a CniPlugin source.")
  private String url;

  @JsonPropertyDescription("Expected lower-case hex sha256 of the binary, for a CniPlugin source.")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public NodePlugin withName(String name) {
    this.name = name;
    return this;
  }

  public String getSource() {
    return source;
  }

  public void setSource(String source) {
    this.source = source;
  }

  public NodePlugin withSource(String source) {
    this.source = source;
    return this;
  }

  public String getUrl() {
    return url;
  }

  public void setUrl(String url) {
    this.url = url;
  }

  public NodePlugin withUrl(String url) {
    this.url = url;
    return this;
  }

  public String getSha256() {
    return sha256;
  }

  public void setSha256(String sha256) {
    this.sha256 = sha256;
  }

  public NodePlugin withSha256(String sha256) {
    this.sha256 = sha256;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof NodePlugin other)) {
      return false;
    }
    return Objects.equals(name, other.name)
        && Objects.equals(source, other.source)
        && Objects.equals(url, other.url)
        && Objects.equals(sha256, other.sha256);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, source, url, sha256);
  }

  @Override
  public String toString() {
    return "NodePlugin{name="
        + name
        + ", source="
        + source
        + ", url="
        + url
        + ", sha256="
        + sha256
        + "}";
  }
}
