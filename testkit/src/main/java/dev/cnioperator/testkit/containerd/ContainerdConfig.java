package dev.cnioperator.testkit.containerd;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The {@code config.toml} of a test containerd, in its release's config version: every path it
 * writes to is under the fixture's directory, its CRI plugin reads CNI configuration and plugins
 * from the test's node directories, and what a test does not need is switched off.
 */
record ContainerdConfig(
    ContainerdRelease release,
    Path root,
    Path state,
    Path socket,
    Path cniConfDir,
    Path cniBinDir,
    String sandboxImage,
    String snapshotter,
    ContainerdFixture.NetnsPlacement netns) {

  /** runc's own state (default {@code /run/containerd/runc}), kept under the fixture's state. */
  Path runcRoot() {
    return state.resolve("runc");
  }

  /**
   * The registry hosts directory ({@code config_path}): {@code <host:port>/hosts.toml} files that
   * containerd reads at each pull, so a registry can be trusted while containerd runs.
   */
  Path registryHosts() {
    return root.resolveSibling("certs.d");
  }

  String toml() {
    return header() + (release.configVersion() == 3 ? versionThreePlugins() : versionTwoPlugins());
  }

  /** What every config version has alike: where containerd keeps its data and listens. */
  private String header() {
    return """
        version = %d
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
        """
        .formatted(
            release.configVersion(),
            quote(root),
            quote(state),
            release.disabledPlugins().stream()
                .map(ContainerdConfig::quote)
                .collect(Collectors.joining(", ")),
            quote(socket),
            quote(socket + ".ttrpc"),
            quote(root.resolve("opt")));
  }

  /** containerd 1.x: one CRI plugin, {@code io.containerd.grpc.v1.cri}, holds every setting. */
  private String versionTwoPlugins() {
    String cri = "plugins.\"io.containerd.grpc.v1.cri\"";
    return runtimeTables(
            cri,
            List.of(
                "sandbox_image = " + quote(sandboxImage), "stream_server_address = \"127.0.0.1\""),
            List.of("snapshotter = " + quote(snapshotter)),
            "bin_dir = " + quote(cniBinDir))
        + registryTable(cri);
  }

  /** The registry table of the plugin that pulls ({@code pluginTable}): its hosts directory. */
  private String registryTable(String pluginTable) {
    return """

          [%s.registry]
            config_path = %s
        """
        .formatted(pluginTable, quote(registryHosts()));
  }

  /**
   * containerd 2.x: the CRI plugin is split in three (keys as in 2.x's {@code
   * internal/cri/config}): {@code io.containerd.cri.v1.runtime} (runtimes, CNI, netns placement),
   * {@code io.containerd.cri.v1.images} (snapshotter; the sandbox image is the pinned image {@code
   * sandbox}), {@code io.containerd.grpc.v1.cri} (the stream server). CNI takes a list of bin dirs.
   */
  private String versionThreePlugins() {
    String images = "plugins.\"io.containerd.cri.v1.images\"";
    return runtimeTables(
            "plugins.\"io.containerd.cri.v1.runtime\"",
            List.of(),
            List.of(),
            "bin_dirs = [" + quote(cniBinDir) + "]")
        + """

          [%1$s]
            snapshotter = %2$s

            [%1$s.pinned_images]
              sandbox = %3$s

          [plugins."io.containerd.grpc.v1.cri"]
            stream_server_address = "127.0.0.1"
        """
            .formatted(images, quote(snapshotter), quote(sandboxImage))
        + registryTable(images);
  }

  /**
   * The CRI runtime's tables, which both versions share but for their name ({@code table}), the
   * keys 1.x keeps there and in its {@code containerd} table, and how CNI's bin dirs are given.
   */
  private String runtimeTables(
      String table, List<String> ownKeys, List<String> containerdKeys, String cniBinDirs) {
    // Each extra key is a whole line with its indentation, put in before the line that follows.
    return """

          [%1$s]
        %2$s    %3$s
            # The test's root lacks CAP_SYS_RESOURCE in some sandboxes: the pause process must not
            # ask for a lower oom_score_adj than containerd's own.
            restrict_oom_score_adj = true

            [%1$s.containerd]
        %4$s      default_runtime_name = "runc"

              [%1$s.containerd.runtimes.runc]
                runtime_type = "io.containerd.runc.v2"

                [%1$s.containerd.runtimes.runc.options]
                  Root = %5$s

            [%1$s.cni]
              %6$s
              conf_dir = %7$s
              max_conf_num = 1
        """
        .formatted(
            table,
            lines("    ", ownKeys),
            netnsSetting(),
            lines("      ", containerdKeys),
            quote(runcRoot()),
            cniBinDirs,
            quote(cniConfDir));
  }

  private static String lines(String indent, List<String> keys) {
    return keys.stream().map(k -> indent + k + "\n").collect(Collectors.joining());
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
