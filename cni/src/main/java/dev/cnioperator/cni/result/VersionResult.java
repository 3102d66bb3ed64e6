package dev.cnioperator.cni.result;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.List;
import java.util.Optional;

/**
 * A plugin's answer to VERSION (SPEC-1.1.0.md, Section 5 "VERSION Success"): the version it
 * answered in and the versions it supports. Supported versions stay strings, since a newer plugin
 * may list versions this library does not know.
 */
public record VersionResult(CniVersion cniVersion, List<String> supportedVersions) {

  /** What libcni assumes for a 0.2.0 plugin that lists no versions. */
  public static final List<String> LEGACY_VERSIONS = List.of("0.1.0", "0.2.0");

  public VersionResult {
    supportedVersions = List.copyOf(supportedVersions);
  }

  /**
   * What libcni assumes for a plugin so old that it answers VERSION with "unknown CNI_COMMAND:
   * VERSION": it supports 0.1.0 only.
   */
  public static VersionResult ofPluginWithoutVersionCommand() {
    return new VersionResult(CniVersion.LATEST, List.of("0.1.0"));
  }

  /** True when the plugin lists {@code version}. */
  public boolean supports(CniVersion version) {
    return supportedVersions.contains(version.toString());
  }

  /** The listed versions this library knows, oldest first. */
  public List<CniVersion> knownSupportedVersions() {
    return supportedVersions.stream()
        .map(CniVersion::parse)
        .flatMap(Optional::stream)
        .distinct()
        .sorted()
        .toList();
  }

  /** The newest version both this library speaks and the plugin supports. */
  public Optional<CniVersion> newestSupported() {
    return knownSupportedVersions().stream().filter(CniVersion::isSupported).reduce((a, b) -> b);
  }

  /** The wire form, as a plugin prints it. */
  public ObjectNode toJson() {
    ObjectNode out = ResultJson.newObject();
    out.put("cniVersion", cniVersion.toString());
    supportedVersions.forEach(out.putArray("supportedVersions")::add);
    return out;
  }
}
