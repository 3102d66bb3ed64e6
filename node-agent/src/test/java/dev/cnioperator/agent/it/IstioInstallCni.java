package dev.cnioperator.agent.it;

import static org.awaitility.Awaitility.await;

import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Istio's real CNI node installer, {@code install-cni} (built from istio.io/istio by
 * e2e/bin/provision), run on a simulated node the way Istio's DaemonSet runs it: in chained mode,
 * the node's conf dir mounted at {@code /host/etc/cni/net.d} and its bin dir at {@code
 * /host/opt/cni/bin}, the plugin {@code istio-cni} in {@code /opt/cni/bin} to copy from, a
 * ServiceAccount token for the kubeconfig it writes for the plugin. Its paths are fixed, so it runs
 * in a root of its own (chroot) inside a mount and network namespace of its own (unshare): its
 * mounts go with it and its ports (8000, 15014) are not the host's. Repair (which watches pods) and
 * ambient mode are off, as in its chart's sidecar mode with repair disabled.
 */
final class IstioInstallCni implements AutoCloseable {
  /** What install-cni logs each time it writes the conflist. */
  private static final Pattern WROTE = Pattern.compile("Wrote CNI config to (\\S+)");

  private final Process process;
  private final Path log;

  /** Where it writes the plugin's kubeconfig: the same absolute path inside its root and out. */
  final Path runDir;

  private IstioInstallCni(Process process, Path log, Path runDir) {
    this.process = process;
    this.log = log;
    this.runDir = runDir;
  }

  /**
   * Starts install-cni on {@code node}, with a token of {@code namespace}/{@code serviceAccount}
   * for the plugin's kubeconfig.
   */
  static IstioInstallCni start(SimulatedNode node, LocalControlPlane cp, String token)
      throws IOException {
    Path istio = ToolPaths.istioDir();
    Path root = node.root.resolve("istio-root");
    Path runDir = node.root.resolve("istio-run").toAbsolutePath();
    Files.createDirectories(runDir);
    for (String dir :
        List.of(
            "usr/local/bin",
            "opt/cni/bin",
            "host/etc/cni/net.d",
            "host/opt/cni/bin",
            "var/run/secrets/kubernetes.io/serviceaccount",
            "tmp")) {
      Files.createDirectories(root.resolve(dir));
    }
    Files.createDirectories(root.resolve(runDir.toString().substring(1)));
    copy(istio.resolve("install-cni"), root.resolve("usr/local/bin/install-cni"));
    copy(istio.resolve("istio-cni"), root.resolve("opt/cni/bin/istio-cni"));
    Path secrets = root.resolve("var/run/secrets/kubernetes.io/serviceaccount");
    Files.writeString(secrets.resolve("token"), token);
    Files.copy(
        Path.of(cp.client().getConfiguration().getCaCertFile()),
        secrets.resolve("ca.crt"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(secrets.resolve("namespace"), "istio-system");

    URI server = URI.create(cp.serverUrl());
    String script =
        String.join(
            " && ",
            "mount --bind "
                + node.paths.confDir().toAbsolutePath()
                + " "
                + root.resolve("host/etc/cni/net.d"),
            "mount --bind "
                + node.paths.binDir().toAbsolutePath()
                + " "
                + root.resolve("host/opt/cni/bin"),
            "mount --bind " + runDir + " " + root.resolve(runDir.toString().substring(1)),
            "exec chroot " + root + " /usr/local/bin/install-cni --log_output_level=default:info");
    Path log = node.root.resolve("install-cni.log");
    ProcessBuilder pb =
        new ProcessBuilder(
                "unshare", "--mount", "--net", "--propagation", "private", "sh", "-c", script)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = pb.environment();
    env.put("KUBERNETES_SERVICE_HOST", server.getHost());
    env.put("KUBERNETES_SERVICE_PORT", Integer.toString(server.getPort()));
    env.put("POD_NAMESPACE", "istio-system");
    env.put("CHAINED_CNI_PLUGIN", "true");
    env.put("REPAIR_ENABLED", "false");
    env.put("AMBIENT_ENABLED", "false");
    env.put("EXCLUDE_NAMESPACES", "kube-system");
    env.put("CNI_AGENT_RUN_DIR", runDir.toString());
    return new IstioInstallCni(pb.start(), log, runDir);
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
  }

  /** Its log so far. */
  String log() throws IOException {
    return Files.exists(log) ? Files.readString(log) : "";
  }

  /** How many times it wrote the conflist so far. */
  int writes() throws IOException {
    Matcher m = WROTE.matcher(log());
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  /** Waits until it has written the conflist {@code n} times. */
  void awaitWrites(int n) {
    await("install-cni's write %d".formatted(n))
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(() -> writes() >= n);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM, as a pod's stop: it takes its entry out of the file and its binary away. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}
