package dev.cnioperator.cni.result;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.util.Optional;
import java.util.Set;

/**
 * The three wire shapes CNI results have had, and which versions use each (as libcni groups them).
 */
enum ResultShape {
  /** 0.1.0 and 0.2.0: {@code ip4}/{@code ip6} objects. */
  V020(Set.of(CniVersion.V0_1_0, CniVersion.V0_2_0)),
  /** 0.3.0, 0.3.1 and 0.4.0: interfaces/ips/routes, ips with {@code version}. */
  V040(Set.of(CniVersion.V0_3_0, CniVersion.V0_3_1, CniVersion.V0_4_0)),
  /** 1.0.0 and 1.1.0: the current shape. */
  V100(Set.of(CniVersion.V1_0_0, CniVersion.V1_1_0));

  private final Set<CniVersion> versions;

  ResultShape(Set<CniVersion> versions) {
    this.versions = versions;
  }

  static Optional<ResultShape> of(CniVersion version) {
    for (ResultShape shape : values()) {
      if (shape.versions.contains(version)) {
        return Optional.of(shape);
      }
    }
    return Optional.empty();
  }

  /** The shape of {@code version}, or INCOMPATIBLE_VERSION naming it. */
  static ResultShape ofKnown(CniVersion version) {
    return of(version)
        .orElseThrow(
            () ->
                new CniException(
                    CniErrorCode.INCOMPATIBLE_VERSION,
                    "unsupported CNI result version \"" + version + "\"",
                    "known result versions: " + CniVersion.KNOWN));
  }

  void require(CniVersion version) {
    if (!versions.contains(version)) {
      throw new IllegalArgumentException(
          "a " + name() + " result has version " + versions + ", not " + version);
    }
  }
}
