package dev.cnioperator.testkit.containerd;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code config.toml} (version 2, containerd 1.6) of a test containerd: every path it writes to
 * is under the fixture's directory, its CRI plugin reads CNI configuration and plugins from the
 * test's node directories, and what a test does not need is switched off.
 */
record ContainerdConfig(
    Path root,
    Path state,
    Path socket,
    Path cniConfDir,
    Path cniBinDir,
    String sandboxImage,
    String snapshotter,
    ContainerdFixture.NetnsPlacement netns) {

  /** Snapshotters and tracing this machine has no use for (and that log errors when probed). */
  static final List<String> DISABLED_PLUGINS =
      List.of(
          "io.containerd.snapshotter.v1.aufs",
          "io.containerd.snapshotter.v1.btrfs",
          "io.containerd.snapshotter.v1.zfs",
          "io.containerd.snapshotter.v1.devmapper",
          "io.containerd.tracing.processor.v1.otlp",
          "io.containerd.internal.v1.tracing");

  /** runc's own state (default {@code /run/containerd/runc}), kept under the fixture's state. */
  Path runcRoot() {
    return state.resolve("runc");
  }

  String toml() {
    String cri = "plugins.\"io.containerd.grpc.v1.cri\"";
    return """
        version = 2
        root = %s
        state = %s
        disabled_plugins = [%s]

        [grpc]
          address = %s

        [ttrpc]
          address = %s

        [plugins]
          [plugins."io.containerd.internal.v1.opt"]
            path = %s

          [%s]
            sandbox_image = %s
            stream_server_address = "127.0.0.1"
            %s
            # The test's root lacks CAP_SYS_RESOURCE in some sandboxes: the pause process must not
            # ask for a lower oom_score_adj than containerd's own.
            restrict_oom_score_adj = true

            [%s.containerd]
              snapshotter = %s
              default_runtime_name = "runc"

              [%s.containerd.runtimes.runc]
                runtime_type = "io.containerd.runc.v2"

                [%s.containerd.runtimes.runc.options]
                  Root = %s

            [%s.cni]
              bin_dir = %s
              conf_dir = %s
              max_conf_num = 1
        """
        .formatted(
            quote(root),
            quote(state),
            DISABLED_PLUGINS.stream()
                .map(ContainerdConfig::quote)
                .collect(Collectors.joining(", ")),
            quote(socket),
            quote(socket + ".ttrpc"),
            quote(root.resolve("opt")),
            cri,
            quote(sandboxImage),
            netnsSetting(),
            cri,
            quote(snapshotter),
            cri,
            cri,
            quote(runcRoot()),
            cri,
            quote(cniBinDir),
            quote(cniConfDir));
  }

  /**
   * Under the state dir, the sandboxes' network namespaces stay out of the machine's {@code
   * /var/run/netns}; containerd's default puts them there, as on a real node.
   */
  private String netnsSetting() {
    return switch (netns) {
      case UNDER_STATE_DIR -> "netns_mounts_under_state_dir = true";
      case VAR_RUN_NETNS -> "netns_mounts_under_state_dir = false";
    };
  }

  /** A TOML basic string. */
  static String quote(Object value) {
    return "\"" + value.toString().replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
