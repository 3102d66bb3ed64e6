package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;
import dev.cnioperator.cni.CniVersion;

/** A CNI specification version a CniNetwork may declare; the schema's enum of cniVersion. */
public enum SpecVersion {
  @JsonProperty("0.3.0")
  V0_3_0(CniVersion.V0_3_0),
  @JsonProperty("0.3.1")
  V0_3_1(CniVersion.V0_3_1),
  @JsonProperty("0.4.0")
  V0_4_0(CniVersion.V0_4_0),
  @JsonProperty("1.0.0")
  V1_0_0(CniVersion.V1_0_0),
  @JsonProperty("1.1.0")
  V1_1_0(CniVersion.V1_1_0);

  private final CniVersion version;

  SpecVersion(CniVersion version) {
    this.version = version;
  }

  /** The version as the cni library models it. */
  public CniVersion version() {
    return version;
  }

  /** "X.Y.Z", as written in configuration. */
  @JsonValue
  public String text() {
    return version.toString();
  }

  /** The constant for a version the cni library knows and supports. */
  public static SpecVersion of(CniVersion version) {
    for (SpecVersion v : values()) {
      if (v.version.equals(version)) {
        return v;
      }
    }
    throw new IllegalArgumentException("CNI version " + version + " is not supported");
  }
}
