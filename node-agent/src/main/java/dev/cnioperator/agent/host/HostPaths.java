package dev.cnioperator.agent.host;

import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import java.nio.file.Path;
import java.util.Map;

/**
 * The node directories the agent works in. Each is configurable because tests point them at a
 * per-node sandbox and some distributions (k3s, for one) keep CNI files elsewhere.
 *
 * @param confDir where conflists live, read by the container runtime ({@code /etc/cni/net.d})
 * @param binDir where plugin binaries live ({@code /opt/cni/bin})
 * @param cacheDir libcni's cache of attachments ({@code /var/lib/cni})
 * @param netnsDir where named network namespaces are mounted ({@code /var/run/netns})
 * @param stateDir the agent's own state: its manifest ({@code /var/lib/cni-operator})
 * @param bundledPluginDir the plugin binaries shipped with the agent ({@code
 *     /opt/cni-node-agent/plugins})
 * @param multusConfDir Multus's own configuration directory, where the files of its config-less
 *     NetworkAttachmentDefinitions live ({@code /etc/cni/multus/net.d}, Multus's {@code confDir})
 * @param multusCacheDir the libcni cache Multus gives the plugins of its attachments ({@code
 *     /var/lib/cni/multus}, Multus's {@code cniDir}): their results are under its {@code results/},
 *     not the runtime's
 */
public record HostPaths(
    Path confDir,
    Path binDir,
    Path cacheDir,
    Path netnsDir,
    Path stateDir,
    Path bundledPluginDir,
    Path multusConfDir,
    Path multusCacheDir) {

  /** Named network namespaces are mounted here ({@code ip netns}); real even in a sandbox. */
  public static final Path DEFAULT_NETNS_DIR = Path.of("/var/run/netns");

  /**
   * Every directory under one root, as a per-node test sandbox has them: {@code
   * <root>/etc/cni/net.d} and so on. The netns directory stays the machine's, because network
   * namespaces are real.
   */
  public static HostPaths under(Path root, Path bundledPluginDir) {
    return new HostPaths(
        root.resolve("etc/cni/net.d"),
        root.resolve("opt/cni/bin"),
        root.resolve("var/lib/cni"),
        DEFAULT_NETNS_DIR,
        root.resolve("var/lib/cni-operator"),
        bundledPluginDir,
        root.resolve("etc/cni/multus/net.d"),
        root.resolve("var/lib/cni/multus"));
  }

  /**
   * These paths as command-line flags of {@code run}, for starting the agent as a process: the
   * inverse of {@code RunCommand#paths()}.
   */
  public Map<String, String> asFlags() {
    return Map.of(
        "--conf-dir", confDir.toString(),
        "--bin-dir", binDir.toString(),
        "--cache-dir", cacheDir.toString(),
        "--netns-dir", netnsDir.toString(),
        "--state-dir", stateDir.toString(),
        "--bundled-plugin-dir", bundledPluginDir.toString(),
        "--multus-conf-dir", multusConfDir.toString(),
        "--multus-cache-dir", multusCacheDir.toString());
  }

  public HostPaths withCacheDir(Path dir) {
    return new HostPaths(
        confDir, binDir, dir, netnsDir, stateDir, bundledPluginDir, multusConfDir, multusCacheDir);
  }

  public HostPaths withNetnsDir(Path dir) {
    return new HostPaths(
        confDir, binDir, cacheDir, dir, stateDir, bundledPluginDir, multusConfDir, multusCacheDir);
  }

  /** Where a network of {@code directory} has its file. */
  public Path confDir(ConfigDirectory directory) {
    return directory == ConfigDirectory.Multus ? multusConfDir : confDir;
  }

  /** The libcni cache the attachments of a network of {@code directory} are in. */
  public Path cacheDir(ConfigDirectory directory) {
    return directory == ConfigDirectory.Multus ? multusCacheDir : cacheDir;
  }

  /** The manifest of what the agent wrote on this node. */
  public Path manifestFile() {
    return stateDir.resolve("manifest.json");
  }

  /**
   * The record of the directories the agent made for Multus's files ({@link CreatedDirectories}).
   */
  public Path createdDirectoriesFile() {
    return stateDir.resolve("created-directories.json");
  }

  /** The record of the drop-in files the agent wrote ({@link DropIns}). */
  public Path dropInsFile() {
    return stateDir.resolve("drop-ins.json");
  }

  /** The record of the drop-in directories the agent made ({@link CreatedDirectories}). */
  public Path createdDropInDirectoriesFile() {
    return stateDir.resolve("created-drop-in-directories.json");
  }
}
