package dev.cnioperator.agent;

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
      description = "This node's name, which is also its CniNode's (env NODE_NAME).")
  String nodeName;

  @Option(
      names = "--kubeconfig",
      defaultValue = "${env:KUBECONFIG}",
      description = "Kubeconfig file; in a pod the ServiceAccount is used (env KUBECONFIG).")
  Path kubeconfig;

  @Option(names = "--conf-dir", defaultValue = "${env:CNI_CONF_DIR:-/etc/cni/net.d}")
  Path confDir;

  @Option(names = "--bin-dir", defaultValue = "${env:CNI_BIN_DIR:-/opt/cni/bin}")
  Path binDir;

  @Option(names = "--cache-dir", defaultValue = "${env:CNI_CACHE_DIR:-/var/lib/cni}")
  Path cacheDir;

  @Option(names = "--netns-dir", defaultValue = "${env:CNI_NETNS_DIR:-/var/run/netns}")
  Path netnsDir;

  @Option(names = "--state-dir", defaultValue = "${env:AGENT_STATE_DIR:-/var/lib/cni-node-agent}")
  Path stateDir;

  @Option(
      names = "--bundled-plugin-dir",
      defaultValue = "${env:AGENT_BUNDLED_PLUGIN_DIR:-/opt/cni-node-agent/plugins}")
  Path bundledPluginDir;

  @Option(
      names = "--cri-socket",
      defaultValue = "${env:AGENT_CRI_SOCKET}",
      description =
          "The container runtime's CRI socket; when set, its pod sandboxes are the source of truth"
              + " for live attachments instead of the API server's pods (env AGENT_CRI_SOCKET).")
  Path criSocket;

  @Option(
      names = "--listen",
      defaultValue = "${env:AGENT_LISTEN:-0.0.0.0:9464}",
      description = "host:port of /healthz, /readyz and /metrics; port 0 picks a free one.")
  String listen;

  @Option(names = "--resync-seconds", defaultValue = "${env:AGENT_RESYNC_SECONDS:-60}")
  int resyncSeconds;

  @Option(
      names = "--plugin-timeout-seconds",
      defaultValue = "${env:AGENT_PLUGIN_TIMEOUT_SECONDS:-30}")
  int pluginTimeoutSeconds;

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
            new HostPaths(confDir, binDir, cacheDir, netnsDir, stateDir, bundledPluginDir),
            criSocket,
            listenAddress(listen),
            Duration.ofSeconds(resyncSeconds),
            Duration.ofSeconds(pluginTimeoutSeconds));
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

  private static InetSocketAddress listenAddress(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("--listen must be host:port, got " + hostPort);
    }
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }
}
