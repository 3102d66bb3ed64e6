package dev.cnioperator.testkit.containerd;

import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import java.nio.file.Path;
import java.util.List;

/**
 * A containerd release users run, as a test containerd: where its {@code containerd}, {@code
 * containerd-shim-runc-v2} and {@code ctr} are, and which configuration it reads. runc is Debian's
 * for all of them.
 */
public enum ContainerdRelease implements RuntimeRelease {
  /**
   * Debian's {@code containerd} package (1.6 on bookworm, built without the tracing plugins):
   * config version 2, libcni 1.1 (no netns in its result cache, no CNI STATUS).
   */
  DEBIAN_1_6(
      "containerd 1.6 (Debian)",
      2,
      List.of(
          "io.containerd.snapshotter.v1.aufs",
          "io.containerd.snapshotter.v1.btrfs",
          "io.containerd.snapshotter.v1.zfs",
          "io.containerd.snapshotter.v1.devmapper")),

  /**
   * containerd 1.7 built by {@code e2e/bin/provision} (no btrfs, devmapper or zfs snapshotter):
   * config version 2, libcni 1.1.
   */
  V1_7(
      "containerd 1.7",
      2,
      List.of(
          "io.containerd.snapshotter.v1.aufs",
          "io.containerd.snapshotter.v1.blockfile",
          "io.containerd.tracing.processor.v1.otlp",
          "io.containerd.internal.v1.tracing")),

  /**
   * containerd 2.x built by {@code e2e/bin/provision}: config version 3 (the CRI plugin split into
   * runtime, images and the gRPC server; what every 2.x reads, which 2.4 migrates to its version 4
   * with a warning), libcni 1.3 (the netns in its cache, STATUS on 1.1.0 networks). NRI is on by
   * default in 2.x and would listen on the machine's {@code /var/run/nri/nri.sock}, so it is off.
   */
  V2_X(
      "containerd 2.x",
      3,
      List.of(
          "io.containerd.snapshotter.v1.blockfile",
          "io.containerd.snapshotter.v1.erofs",
          "io.containerd.differ.v1.erofs",
          "io.containerd.tracing.processor.v1.otlp",
          "io.containerd.internal.v1.tracing",
          "io.containerd.nri.v1.nri"));

  private final String label;
  private final int configVersion;
  private final List<String> disabledPlugins;

  ContainerdRelease(String label, int configVersion, List<String> disabledPlugins) {
    this.label = label;
    this.configVersion = configVersion;
    this.disabledPlugins = disabledPlugins;
  }

  /**
   * The directory with this release's {@code containerd}, {@code containerd-shim-runc-v2} and
   * {@code ctr}; fails (CI) or skips (elsewhere) when they are not there.
   */
  public Path binDir() {
    Path dir =
        switch (this) {
          case DEBIAN_1_6 -> Prerequisites.requireCommand("containerd").getParent();
          case V1_7 -> ToolPaths.containerd17Dir();
          case V2_X -> ToolPaths.containerd2Dir();
        };
    for (String binary : List.of("containerd", "containerd-shim-runc-v2", "ctr")) {
      Prerequisites.requireExecutable(dir.resolve(binary), label + "'s " + binary);
    }
    return dir;
  }

  /**
   * containerd's default gRPC address, the chart's {@code containerd} profile: every release
   * listens there unless told otherwise.
   */
  @Override
  public String criSocket() {
    return "/run/containerd/containerd.sock";
  }

  @Override
  public String chartProfile() {
    return "containerd";
  }

  /** The {@code version} of the {@code config.toml} it is given: 2 (1.x) or 3 (2.x). */
  int configVersion() {
    return configVersion;
  }

  /**
   * Plugins this release has (as {@code ctr plugins ls} lists them) that the machine has no use for
   * and that log errors or skip when probed, or that would write outside the fixture's directory.
   */
  List<String> disabledPlugins() {
    return disabledPlugins;
  }

  @Override
  public String toString() {
    return label;
  }
}
