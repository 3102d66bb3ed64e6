package dev.cnioperator.testkit;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReference;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane made of processes on loopback: etcd and kube-apiserver started by
 * fabric8's kube-api-test in offline mode (binaries from {@code e2e/bin/provision}), and
 * kube-controller-manager beside them so that owner-reference garbage collection, namespace
 * deletion and service-account creation behave as in a cluster.
 *
 * <p>{@link #shared()} starts one per JVM, stopped when the JVM exits; {@link #start()} starts a
 * private one the caller closes.
 */
public final class LocalControlPlane implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalControlPlane.class);
  private static final String[] CONTROLLERS = {
    "garbage-collector-controller", "namespace-controller", "serviceaccount-controller"
  };

  /** What {@link #startForNodes} adds, so that real kubelets get pods and their Nodes podCIDRs. */
  private static final String[] NODE_CONTROLLERS = {
    "node-ipam-controller",
    "node-lifecycle-controller",
    "daemonset-controller",
    "deployment-controller",
    "replicaset-controller",
    "job-controller",
    "pod-garbage-collector-controller",
    "root-ca-certificate-publisher-controller"
  };

  /** How long kube-api-test may wait for etcd and for kube-apiserver, each. */
  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);

  /**
   * How long before the apiserver's readiness poll can begin after the start: etcd must be ready
   * first. With the timeout, the window before midnight in which a start is not safe.
   */
  private static final Duration MIDNIGHT_MARGIN = Duration.ofSeconds(90);

  private static volatile LocalControlPlane shared;

  private final KubeAPIServer apiServer;
  private final Path workDir;
  private final Path kubeconfig;
  private final KubernetesClient client;
  private final Process controllerManager;
  private final String clusterCidr;
  private final LocalPki pki;
  private final Process scheduler;

  private LocalControlPlane(KubeAPIServer apiServer, Path workDir, String clusterCidr, LocalPki pki)
      throws IOException {
    this.apiServer = apiServer;
    this.workDir = workDir;
    this.kubeconfig = workDir.resolve("kubeconfig");
    Files.writeString(kubeconfig, apiServer.getKubeConfigYaml());
    this.client =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(readKubeconfig())).build();
    this.clusterCidr = clusterCidr;
    this.pki = pki;
    this.controllerManager = startControllerManager();
    this.scheduler = clusterCidr == null ? null : startScheduler();
  }

  /** The control plane every test in this JVM shares; started on first use. */
  public static LocalControlPlane shared() {
    LocalControlPlane cp = shared;
    if (cp == null) {
      synchronized (LocalControlPlane.class) {
        if (shared == null) {
          shared = start();
          LocalControlPlane started = shared;
          Runtime.getRuntime().addShutdownHook(new Thread(started::close, "control-plane-stop"));
        }
        cp = shared;
      }
    }
    return cp;
  }

  /** Starts a private control plane; fails (CI) or skips when the binaries are not built. */
  public static LocalControlPlane start() {
    return start(null, List.of());
  }

  /**
   * Starts a private control plane for real nodes ({@code KubeletNode}): kube-scheduler, and
   * kube-controller-manager also allocating each Node a /24 podCIDR from {@code clusterCidr} and
   * running the node-lifecycle, DaemonSet, Deployment, ReplicaSet and root-CA publisher
   * controllers. The API server authorizes with {@code Node,RBAC}, admits with {@code
   * NodeRestriction} and {@code ServiceAccount} (so pods get projected tokens) and reaches kubelets
   * by their InternalIP only. kube-api-test puts its own {@code --authorization-mode RBAC} and
   * {@code --disable-admission-plugins ServiceAccount} after ours, so this control plane runs
   * kube-apiserver through a wrapper that drops those two (see {@link #NODE_APISERVER_WRAPPER}).
   */
  public static LocalControlPlane startForNodes(String clusterCidr) {
    return startForNodes(clusterCidr, List.of());
  }

  /**
   * {@link #startForNodes(String)} with a serving certificate that also names {@code
   * serverAddresses}: the addresses nodes and their pods reach the API server at (a proxy on the
   * node bridge), so that they verify it without naming another host.
   */
  public static LocalControlPlane startForNodes(String clusterCidr, List<String> serverAddresses) {
    Prerequisites.requireExecutable(
        ToolPaths.kubernetesBinDir().resolve("kube-scheduler"), "kube-scheduler");
    return start(clusterCidr, serverAddresses);
  }

  /**
   * kube-apiserver for {@link #startForNodes}: kube-api-test's {@code --authorization-mode RBAC}
   * becomes {@code Node,RBAC} and its {@code --disable-admission-plugins ServiceAccount} is
   * dropped; everything else is passed on.
   */
  private static final String NODE_APISERVER_WRAPPER =
      """
      #!/bin/sh
      # Written by testkit LocalControlPlane.startForNodes.
      real=%s
      n=$#
      while [ "$n" -gt 0 ]; do
        a=$1; shift; n=$((n - 1))
        if [ "$a" = --authorization-mode ] && [ "$n" -gt 0 ]; then
          shift; n=$((n - 1)); set -- "$@" --authorization-mode Node,RBAC
        elif [ "$a" = --disable-admission-plugins ] && [ "$n" -gt 0 ] && [ "$1" = ServiceAccount ]; then
          shift; n=$((n - 1))
        else
          set -- "$@" "$a"
        fi
      done
      exec "$real" "$@"
      """;

  /**
   * A kube-api-test directory of its own: the shared binaries (kube-apiserver behind {@link
   * #NODE_APISERVER_WRAPPER}) and certificates that can sign node certificates ({@link LocalPki}).
   */
  private static LocalPki nodeTestDir(
      Path bin, KubeAPIServerConfigBuilder config, List<String> serverAddresses)
      throws IOException {
    Path testDir = Files.createTempDirectory("cni-operator-kubeapitest");
    Path ownBin = Files.createDirectories(testDir.resolve("k8s").resolve(bin.getFileName()));
    try (var files = Files.list(bin)) {
      for (Path f : files.toList()) {
        if (!f.getFileName().toString().equals("kube-apiserver")) {
          Files.createSymbolicLink(ownBin.resolve(f.getFileName()), f);
        }
      }
    }
    Path wrapper = ownBin.resolve("kube-apiserver");
    Files.writeString(wrapper, NODE_APISERVER_WRAPPER.formatted(bin.resolve("kube-apiserver")));
    wrapper.toFile().setExecutable(true);
    config.withTestDir(testDir.toString());
    return LocalPki.create(testDir, serverAddresses);
  }

  private static LocalControlPlane start(String clusterCidr, List<String> serverAddresses) {
    Path bin = ToolPaths.kubernetesBinDir();
    for (String b : List.of("kube-apiserver", "etcd", "kubectl", "kube-controller-manager")) {
      Prerequisites.requireExecutable(bin.resolve(b), b);
    }
    long t0 = System.nanoTime();
    KubeAPIServerConfigBuilder config =
        KubeAPIServerConfigBuilder.anAPIServerConfig()
            .withOfflineMode(true)
            .withApiServerVersion(ToolPaths.kubernetesVersion())
            .withApiServerFlag("--bind-address", "127.0.0.1")
            .withStartupTimeout((int) STARTUP_TIMEOUT.toMillis())
            .withWaitForEtcdHealthCheckOnStartup(true);
    LocalPki pki = null;
    if (clusterCidr != null) {
      try {
        pki = nodeTestDir(bin, config, serverAddresses);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      config
          .withApiServerFlag("--enable-admission-plugins", "NodeRestriction")
          .withApiServerFlag("--kubelet-preferred-address-types", "InternalIP");
    }
    KubeAPIServer server = new KubeAPIServer(config.build());
    sleepPastMidnightIfNear();
    server.start();
    try {
      LocalControlPlane cp =
          new LocalControlPlane(
              server, Files.createTempDirectory("cni-operator-controlplane"), clusterCidr, pki);
      log.info(
          "event=control-plane-started server={} millis={}",
          cp.serverUrl(),
          (System.nanoTime() - t0) / 1_000_000);
      return cp;
    } catch (IOException | RuntimeException e) {
      server.stop();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /**
   * kube-api-test (7.5.2, {@code ProcessReadinessChecker.pollWithTimeout}) takes each readiness
   * deadline as a time of day, {@code LocalTime.now()} plus the timeout. A start within the timeout
   * before midnight gets a deadline just after midnight, which the time of day is already past, so
   * the first poll that finds etcd or kube-apiserver not yet serving fails with "did not start
   * properly". Such a start waits until just after midnight instead.
   */
  private static void sleepPastMidnightIfNear() {
    Duration wait = waitBeforeStart(LocalTime.now(), STARTUP_TIMEOUT.plus(MIDNIGHT_MARGIN));
    if (wait.isZero()) {
      return;
    }
    log.info(
        "event=control-plane-start-delayed reason=midnight millis={} why=\"kube-api-test's"
            + " readiness deadline is a time of day and would wrap\"",
        wait.toMillis());
    try {
      Thread.sleep(wait.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for midnight to pass", e);
    }
  }

  /**
   * How long a start at {@code now} must wait so that no deadline of {@code window} from it wraps
   * past midnight: until one second after midnight when midnight is less than {@code window} away,
   * otherwise not at all.
   */
  static Duration waitBeforeStart(LocalTime now, Duration window) {
    Duration toMidnight = Duration.ofNanos(LocalTime.MAX.toNanoOfDay() - now.toNanoOfDay() + 1);
    return toMidnight.compareTo(window) < 0 ? toMidnight.plusSeconds(1) : Duration.ZERO;
  }

  /** An admin client (system:masters). */
  public KubernetesClient client() {
    return client;
  }

  /** An admin kubeconfig file, for kubectl, helm and the product's processes. */
  public Path kubeconfigFile() {
    return kubeconfig;
  }

  public String serverUrl() {
    return client.getConfiguration().getMasterUrl();
  }

  public int apiServerPort() {
    return URI.create(serverUrl()).getPort();
  }

  /** Runs the pinned kubectl against this control plane. */
  public CommandResult kubectl(String... args) {
    return kubectlWithInput(null, args);
  }

  /**
   * Runs kubectl with a longer limit than the default two minutes, for {@code kubectl wait
   * --timeout=...} beyond that; {@code limit} should exceed kubectl's own timeout.
   */
  public CommandResult kubectl(Duration limit, String... args) {
    return run(null, limit, args);
  }

  /** Runs kubectl with {@code stdin} (for {@code apply -f -}). */
  public CommandResult kubectlWithInput(String stdin, String... args) {
    return run(stdin, Duration.ofMinutes(2), args);
  }

  private CommandResult run(String stdin, Duration limit, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ToolPaths.kubectl().toString());
    cmd.add("--kubeconfig=" + kubeconfig);
    // kubectl's discovery cache is ~/.kube/cache by default: a directory per API server address,
    // and every control plane has a port of its own. In the work dir it goes with the control
    // plane.
    cmd.add("--cache-dir=" + workDir.resolve("kubectl-cache"));
    cmd.addAll(List.of(args));
    return Commands.run(
        cmd,
        Map.of(),
        stdin == null ? null : stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        limit);
  }

  /**
   * Mints a token for a ServiceAccount (TokenRequest API), creating nothing: the account must
   * exist. {@code boundObject} may be null, or a Pod or Secret reference to bind the token to.
   */
  public String serviceAccountToken(
      String namespace, String serviceAccount, Duration ttl, BoundObjectReference boundObject) {
    TokenRequest request =
        new TokenRequestBuilder()
            .withNewSpec()
            .withExpirationSeconds(ttl.toSeconds())
            .withBoundObjectRef(boundObject)
            .endSpec()
            .build();
    TokenRequest answer =
        client
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(serviceAccount)
            .tokenRequest(request);
    return answer.getStatus().getToken();
  }

  public String serviceAccountToken(String namespace, String serviceAccount, Duration ttl) {
    return serviceAccountToken(namespace, serviceAccount, ttl, null);
  }

  /** A client that authenticates with {@code token} only (no client certificate). */
  public KubernetesClient clientForToken(String token) {
    return new KubernetesClientBuilder().withConfig(configForToken(token)).build();
  }

  /** A client configuration that authenticates with {@code token} only. */
  public Config configForToken(String token) {
    Config admin = client.getConfiguration();
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(admin.getMasterUrl())
        .withCaCertFile(admin.getCaCertFile())
        .withCaCertData(admin.getCaCertData())
        .withOauthToken(token)
        .build();
  }

  /** Writes a kubeconfig for {@code token} into {@code file}, for a process run as that account. */
  public Path writeKubeconfigForToken(String token, Path file) {
    return writeKubeconfigForToken(token, serverUrl(), file);
  }

  /**
   * As {@link #writeKubeconfigForToken(String, Path)}, for a process that reaches the API server at
   * {@code server} (a node's way to it, {@code NodeBridge.apiServerUrl()}).
   */
  public Path writeKubeconfigForToken(String token, String server, Path file) {
    Config admin = client.getConfiguration();
    String yaml =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster:
            server: %s
            certificate-authority: %s
        users:
        - name: token
          user:
            token: %s
        contexts:
        - name: local
          context: {cluster: local, user: token}
        current-context: local
        """
            .formatted(server, admin.getCaCertFile(), token);
    try {
      Files.writeString(file, yaml);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The range Node podCIDRs are allocated from, or null without {@link #startForNodes}. */
  public String clusterCidr() {
    return clusterCidr;
  }

  /** The certificates of a control plane from {@link #startForNodes}; null otherwise. */
  public LocalPki pki() {
    return pki;
  }

  /**
   * The directory with the kubeconfig and the logs of the controller manager and scheduler; {@link
   * #close} removes it.
   */
  public Path workDir() {
    return workDir;
  }

  @Override
  public synchronized void close() {
    stop(scheduler);
    stop(controllerManager);
    client.close();
    apiServer.stop();
    if (pki != null) {
      Commands.run("rm", "-rf", "--one-file-system", pki.dir().toString());
    }
    Commands.run("rm", "-rf", "--one-file-system", workDir.toString());
  }

  private static void stop(Process p) {
    try {
      if (p != null && p.isAlive()) {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private String readKubeconfig() {
    try {
      return Files.readString(kubeconfig);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Process startControllerManager() throws IOException {
    List<String> controllers = new ArrayList<>(List.of(CONTROLLERS));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                ToolPaths.kubeControllerManager().toString(),
                "--kubeconfig=" + kubeconfig,
                "--leader-elect=false",
                "--bind-address=127.0.0.1",
                "--secure-port=0",
                "--concurrent-gc-syncs=5",
                "--v=1"));
    if (clusterCidr != null) {
      controllers.addAll(List.of(NODE_CONTROLLERS));
      cmd.addAll(
          List.of(
              "--allocate-node-cidrs=true",
              "--cluster-cidr=" + clusterCidr,
              "--node-cidr-mask-size=24",
              "--node-monitor-grace-period=20s",
              "--root-ca-file=" + pki.apiServerCert()));
    }
    cmd.add("--controllers=" + String.join(",", controllers));
    return startLogged(cmd, "kube-controller-manager");
  }

  private Process startScheduler() throws IOException {
    return startLogged(
        List.of(
            ToolPaths.kubeScheduler().toString(),
            "--kubeconfig=" + kubeconfig,
            "--authentication-kubeconfig=" + kubeconfig,
            "--authorization-kubeconfig=" + kubeconfig,
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            "--secure-port=0",
            "--v=1"),
        "kube-scheduler");
  }

  private Process startLogged(List<String> cmd, String name) throws IOException {
    Path logFile = workDir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(logFile.toFile()).start();
    log.info("event={}-started log={}", name, logFile);
    return p;
  }
}
