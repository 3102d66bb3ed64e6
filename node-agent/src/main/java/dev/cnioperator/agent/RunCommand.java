package dev.cnioperator.agent;

import dev.cnioperator.agent.host.HostPaths;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code run}: the agent itself, its flags with environment fallbacks. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Run the node agent.")
public final class RunCommand implements Callable<Integer> {

  @Option(
      names = "--node-name",
      defaultValue = "${env:NODE_NAME}",
      description = "This node's name, which is also its CniNode's; required (env NODE_NAME).")
  String nodeName;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description =
          "Kubeconfig file (env KUBECONFIG; default: the pod's ServiceAccount, else"
              + " ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--conf-dir",
      defaultValue = "${env:CNI_CONF_DIR:-/etc/cni/net.d}",
      description =
          "The runtime's CNI configuration directory, where the conflists go (env CNI_CONF_DIR;"
              + " default: ${DEFAULT-VALUE}).")
  Path confDir;

  @Option(
      names = "--bin-dir",
      defaultValue = "${env:CNI_BIN_DIR:-/opt/cni/bin}",
      description =
          "The runtime's CNI plugin directory, where the plugin binaries go (env CNI_BIN_DIR;"
              + " default: ${DEFAULT-VALUE}).")
  Path binDir;

  @Option(
      names = "--cache-dir",
      defaultValue = "${env:CNI_CACHE_DIR:-/var/lib/cni}",
      description =
          "libcni's cache of attachments, read for CHECK and cleanup. host-local's reservations"
              + " are not under it: they are in the ipam.dataDir of the configuration an"
              + " attachment was added with, else host-local's own /var/lib/cni/networks,"
              + " whatever this directory is (env CNI_CACHE_DIR; default: ${DEFAULT-VALUE}).")
  Path cacheDir;

  @Option(
      names = "--netns-dir",
      defaultValue = "${env:CNI_NETNS_DIR:-/var/run/netns}",
      description =
          "Where the runtime's pod network namespaces are; an attachment whose namespace is gone"
              + " is stale (env CNI_NETNS_DIR; default: ${DEFAULT-VALUE}).")
  Path netnsDir;

  @Option(
      names = "--state-dir",
      defaultValue = "${env:AGENT_STATE_DIR:-/var/lib/cni-operator}",
      description =
          "The agent's own state: the manifest of the files it wrote (env AGENT_STATE_DIR;"
              + " default: ${DEFAULT-VALUE}).")
  Path stateDir;

  @Option(
      names = "--bundled-plugin-dir",
      defaultValue = "${env:AGENT_BUNDLED_PLUGIN_DIR:-/opt/cni-node-agent/plugins}",
      description =
          "The plugin binaries shipped in the agent's image, installed for networks that ask"
              + " for bundled plugins (env AGENT_BUNDLED_PLUGIN_DIR; default: ${DEFAULT-VALUE}).")
  Path bundledPluginDir;

  @Option(
      names = "--multus-conf-dir",
      defaultValue = "${env:AGENT_MULTUS_CONF_DIR:-/etc/cni/multus/net.d}",
      description =
          "Multus's configuration directory (its confDir), where the files of networks that are"
              + " Multus secondary networks go: Multus reads a config-less"
              + " NetworkAttachmentDefinition from there, and the runtime never loads them as its"
              + " pod network. Files there that are not the agent's and that Multus cannot parse"
              + " are reported (env AGENT_MULTUS_CONF_DIR; default: ${DEFAULT-VALUE}).")
  Path multusConfDir;

  @Option(
      names = "--multus-cache-dir",
      defaultValue = "${env:AGENT_MULTUS_CACHE_DIR:-/var/lib/cni/multus}",
      description =
          "The libcni cache Multus gives the plugins of the attachments it makes (its cniDir):"
              + " CHECK and cleanup of Multus secondary networks read their attachments there"
              + " (env AGENT_MULTUS_CACHE_DIR; default: ${DEFAULT-VALUE}).")
  Path multusCacheDir;

  @Option(
      names = "--cri-socket",
      defaultValue = "${env:AGENT_CRI_SOCKET}",
      description =
          "The container runtime's CRI socket; when set and something is there at start, its pod"
              + " sandboxes are the source of truth for live attachments instead of the API"
              + " server's pods, and it names the netns of attachments libcni cached none for"
              + " (containerd 1.6 and 1.7); nothing there at start: as if unset (env"
              + " AGENT_CRI_SOCKET; default: unset, the API server's pods, and such attachments"
              + " are not checked).")
  Path criSocket;

  @Option(
      names = "--listen",
      defaultValue = "${env:AGENT_LISTEN:-0.0.0.0:9464}",
      description =
          "host:port of /healthz, /readyz and /metrics; port 0 picks a free one (env"
              + " AGENT_LISTEN; default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(
      names = "--resync-seconds",
      defaultValue = "${env:AGENT_RESYNC_SECONDS:-60}",
      description =
          "Seconds between scheduled passes, each starting with a fresh GET of the CniNode (env"
              + " AGENT_RESYNC_SECONDS; default: ${DEFAULT-VALUE}).")
  int resyncSeconds;

  @Option(
      names = "--plugin-timeout-seconds",
      defaultValue = "${env:AGENT_PLUGIN_TIMEOUT_SECONDS:-30}",
      description =
          "Seconds a plugin call (ADD, CHECK, DEL, STATUS, VERSION) may take before it is"
              + " killed (env AGENT_PLUGIN_TIMEOUT_SECONDS; default: ${DEFAULT-VALUE}).")
  int pluginTimeoutSeconds;

  @Option(
      names = "--plugin-root",
      defaultValue = "${env:AGENT_PLUGIN_ROOT}",
      description =
          "The node's root file system as mounted in the agent's container: every plugin the"
              + " agent runs (VERSION, the probe's ADD and DEL, CHECK, cleanup's DEL) is chrooted"
              + " into it, so it finds the interpreter of a script, the iptables and every other"
              + " tool it executes where the container runtime's runs of it find them. The paths"
              + " the agent shares with plugins (bin, cache and netns dirs, /run/cni) must be"
              + " mounted at the node's paths (env AGENT_PLUGIN_ROOT; default: unset, plugins run"
              + " in the agent's own root, as they do when the agent runs on the host).")
  Path pluginRoot;

  @Option(
      names = "--kubelet-dir",
      defaultValue = "${env:AGENT_KUBELET_DIR}",
      description =
          "The kubelet's root directory as mounted in the agent's container, at the node's path:"
              + " the agent serves the kubelet's DRA plugin for networks published to the"
              + " scheduler there (plugins_registry/networks.cnioperator.dev-reg.sock and"
              + " plugins/networks.cnioperator.dev/dra.sock), so that pods that claim a network"
              + " start (env AGENT_KUBELET_DIR; default: unset, no plugin).")
  Path kubeletDir;

  @Override
  public Integer call() throws Exception {
    if (nodeName == null || nodeName.isBlank()) {
      System.err.println("cni-node-agent: --node-name or NODE_NAME is required");
      return 2;
    }
    AgentSettings settings =
        new AgentSettings(
            nodeName,
            kubeconfig,
            paths(),
            criSocket,
            listenAddress(listen),
            Duration.ofSeconds(resyncSeconds),
            Duration.ofSeconds(pluginTimeoutSeconds),
            pluginRoot,
            kubeletDir);
    CountDownLatch stopped = new CountDownLatch(1);
    AgentProgram program = AgentProgram.start(settings);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  program.close();
                  stopped.countDown();
                },
                "shutdown"));
    stopped.await();
    return 0;
  }

  /** The node directories the flags (or their environment variables and defaults) name. */
  public HostPaths paths() {
    return new HostPaths(
        confDir,
        binDir,
        cacheDir,
        netnsDir,
        stateDir,
        bundledPluginDir,
        multusConfDir,
        multusCacheDir);
  }

  private static InetSocketAddress listenAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("--listen must be host:port, got " + hostPort);
    }
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
