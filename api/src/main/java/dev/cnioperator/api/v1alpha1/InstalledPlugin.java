package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/** A plugin binary present on a node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class InstalledPlugin {

  @JsonPropertyDescription("Binary name.")
  private String name;

  @JsonPropertyDescription("sha256 of the binary.")
  private String sha256;

  @JsonPropertyDescription("CNI versions the binary reported for VERSION.")
  private List<String> supportedVersions;

  @JsonPropertyDescription(
      "\"agent\" when the agent installed it, \"external\" when it was there before.")
  private String owner;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public InstalledPlugin withName(String name) {
    this.name = name;
    return this;
  }

  public String getSha256() {
    return sha256;
  }

  public void setSha256(String sha256) {
    this.sha256 = sha256;
  }

  public InstalledPlugin withSha256(String sha256) {
    this.sha256 = sha256;
    return this;
  }

  public List<String> getSupportedVersions() {
    return supportedVersions;
  }

  public void setSupportedVersions(List<String> supportedVersions) {
    this.supportedVersions = supportedVersions;
  }

  public InstalledPlugin withSupportedVersions(List<String> supportedVersions) {
    this.supportedVersions = supportedVersions;
    return this;
  }

  public String getOwner() {
    return owner;
  }

  public void setOwner(String owner) {
    this.owner = owner;
  }

  public InstalledPlugin withOwner(String owner) {
    this.owner = owner;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof InstalledPlugin other)) {
      return false;
    }
    return Objects.equals(name, other.name)
        && Objects.equals(sha256, other.sha256)
        && Objects.equals(supportedVersions, other.supportedVersions)
        && Objects.equals(owner, other.owner);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, sha256, supportedVersions, owner);
  }

  @Override
  public String toString() {
    return "InstalledPlugin{name="
        + name
        + ", sha256="
        + sha256
        + ", supportedVersions="
        + supportedVersions
        + ", owner="
        + owner
        + "}";
  }
}
