package dev.cnioperator.testkit;

import io.fabric8.kubernetes.api.model.authentication.BoundObjectReference;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Kubernetes control plane made of processes on loopback, from the binaries {@code
 * e2e/bin/provision} builds: etcd, kube-apiserver with certificates of its own ({@link LocalPki}),
 * and kube-controller-manager beside them so that owner-reference garbage collection, namespace
 * deletion and service-account creation behave as in a cluster. Each process logs into the work
 * dir; a start that fails says why with the end of the log of the server that did not come up.
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
    "root-ca-certificate-publisher-controller",
    // A pod's ResourceClaims from its ResourceClaimTemplates (Dynamic Resource Allocation).
    "resourceclaim-controller"
  };

  /**
   * How long etcd, then kube-apiserver, may take to serve; measured on the monotonic clock, so a
   * change of the time of day does not cut it short. They take 1 to 4 s on this machine.
   */
  private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static volatile LocalControlPlane shared;

  private final Path workDir;
  private final Path kubeconfig;
  private final KubernetesClient client;
  private final Process etcd;
  private final int etcdPort;
  private final String clusterCidr;
  private final LocalPki serverPki;
  private final LocalPki pki;

  /** The release of kube-apiserver, kube-controller-manager and kube-scheduler: its directory. */
  private Path bin;

  private Process apiServer;
  private Process controllerManager;
  private Process scheduler;

  private LocalControlPlane(Servers servers, String clusterCidr) throws IOException {
    this.workDir = servers.workDir();
    this.kubeconfig = servers.kubeconfig();
    this.client = servers.client();
    this.etcd = servers.etcd();
    this.etcdPort = servers.etcdPort();
    this.bin = servers.bin();
    this.apiServer = servers.apiServer();
    this.clusterCidr = clusterCidr;
    this.serverPki = servers.pki();
    this.pki = clusterCidr == null ? null : servers.pki();
    this.controllerManager = startControllerManager();
    try {
      this.scheduler = clusterCidr == null ? null : startScheduler();
    } catch (IOException | RuntimeException e) {
      stop(controllerManager);
      throw e;
    }
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
    return start(null, List.of(), ToolPaths.kubernetesBinDir(), List.of());
  }

  /**
   * {@link #start()} with kube-apiserver also given {@code apiServerFlags}, e.g. {@code
   * --feature-gates=...} to stand for a release where a feature is not on yet.
   */
  public static LocalControlPlane startWithApiServerFlags(String... apiServerFlags) {
    return start(null, List.of(), ToolPaths.kubernetesBinDir(), List.of(apiServerFlags));
  }

  /**
   * Starts a private control plane for real nodes ({@code KubeletNode}): kube-scheduler, and
   * kube-controller-manager also allocating each Node a /24 podCIDR from {@code clusterCidr} and
   * running the node-lifecycle, DaemonSet, Deployment, ReplicaSet and root-CA publisher
   * controllers. The API server authorizes with {@code Node,RBAC}, admits with {@code
   * NodeRestriction} and {@code ServiceAccount} (so pods get projected tokens) and reaches kubelets
   * by their InternalIP only.
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
    return startForNodes(clusterCidr, serverAddresses, ToolPaths.kubernetesBinDir());
  }

  /**
   * {@link #startForNodes(String, List)} with kube-apiserver, kube-controller-manager and
   * kube-scheduler from {@code bin}, the directory of another release than the pinned one (etcd and
   * kubectl stay the pinned release's): a cluster {@link #upgradeTo} the pinned release later.
   */
  public static LocalControlPlane startForNodes(
      String clusterCidr, List<String> serverAddresses, Path bin) {
    Prerequisites.requireExecutable(bin.resolve("kube-scheduler"), "kube-scheduler");
    return start(clusterCidr, serverAddresses, bin, List.of());
  }

  /** The processes and files of a started etcd and kube-apiserver. */
  private record Servers(
      Path workDir,
      Path bin,
      LocalPki pki,
      Process etcd,
      int etcdPort,
      Process apiServer,
      Path kubeconfig,
      KubernetesClient client) {}

  private static LocalControlPlane start(
      String clusterCidr, List<String> serverAddresses, Path bin, List<String> apiServerFlags) {
    Path pinned = ToolPaths.kubernetesBinDir();
    for (String b : List.of("etcd-server", "kubectl")) {
      Prerequisites.requireExecutable(pinned.resolve(b), b);
    }
    for (String b : List.of("kube-apiserver", "kube-controller-manager")) {
      Prerequisites.requireExecutable(bin.resolve(b), b);
    }
    long t0 = System.nanoTime();
    Path workDir;
    try {
      workDir = Files.createTempDirectory("cni-operator-controlplane");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Process etcd = null;
    Process apiServer = null;
    KubernetesClient client = null;
    try {
      LocalPki pki =
          LocalPki.create(Files.createDirectory(workDir.resolve("pki")), serverAddresses);
      int etcdPort = FreePorts.onLoopback();
      int peerPort = FreePorts.onLoopback();
      int apiPort = FreePorts.onLoopback();
      etcd = startLogged(workDir, etcdCommand(pinned, workDir, etcdPort, peerPort), "etcd");
      awaitServing("etcd", etcd, workDir.resolve("etcd.log"), () -> etcdHealthy(etcdPort));
      apiServer =
          startLogged(
              workDir,
              apiServerCommand(bin, pki, etcdPort, apiPort, clusterCidr != null, apiServerFlags),
              "kube-apiserver");
      Path kubeconfig = writeAdminKubeconfig(workDir, pki, apiPort);
      client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(Files.readString(kubeconfig)))
              .build();
      KubernetesClient admin = client;
      awaitServing(
          "kube-apiserver",
          apiServer,
          workDir.resolve("kube-apiserver.log"),
          () -> apiServerReady(admin));
      LocalControlPlane cp =
          new LocalControlPlane(
              new Servers(workDir, bin, pki, etcd, etcdPort, apiServer, kubeconfig, client),
              clusterCidr);
      log.info(
          "event=control-plane-started server={} millis={}",
          cp.serverUrl(),
          (System.nanoTime() - t0) / 1_000_000);
      return cp;
    } catch (IOException | RuntimeException e) {
      if (client != null) {
        client.close();
      }
      stop(apiServer);
      stop(etcd);
      Commands.run("rm", "-rf", "--one-file-system", workDir.toString());
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /** A single-member etcd on loopback, its data in the work dir, without fsync (a test's data). */
  private static List<String> etcdCommand(Path bin, Path workDir, int port, int peerPort) {
    String client = "http://127.0.0.1:" + port;
    String peer = "http://127.0.0.1:" + peerPort;
    return List.of(
        bin.resolve("etcd-server").toString(),
        "--name=default",
        "--data-dir=" + workDir.resolve("etcd-data"),
        "--listen-client-urls=" + client,
        "--advertise-client-urls=" + client,
        "--listen-peer-urls=" + peer,
        "--initial-advertise-peer-urls=" + peer,
        "--initial-cluster=default=" + peer,
        "--unsafe-no-fsync=true");
  }

  /**
   * kube-apiserver on loopback, serving with {@code apiserver.crt}, trusting client certificates
   * signed by {@code client.crt} and signing service-account tokens with the serving key. Without
   * nodes it authorizes with RBAC and leaves out ServiceAccount admission (no pod there runs); with
   * nodes it authorizes with Node,RBAC, admits with NodeRestriction and ServiceAccount, and reaches
   * kubelets at their InternalIP.
   */
  private static List<String> apiServerCommand(
      Path bin,
      LocalPki pki,
      int etcdPort,
      int port,
      boolean forNodes,
      List<String> apiServerFlags) {
    String key = pki.dir().resolve("apiserver.key").toString();
    List<String> cmd =
        new ArrayList<>(
            List.of(
                bin.resolve("kube-apiserver").toString(),
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                "--tls-cert-file=" + pki.apiServerCert(),
                "--tls-private-key-file=" + key,
                "--client-ca-file=" + pki.dir().resolve("client.crt"),
                "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--service-account-issuer=https://localhost",
                "--service-account-key-file=" + key,
                "--service-account-signing-key-file=" + key,
                "--service-cluster-ip-range=10.0.0.0/24",
                "--allow-privileged=true"));
    if (forNodes) {
      cmd.addAll(
          List.of(
              "--authorization-mode=Node,RBAC",
              "--enable-admission-plugins=NodeRestriction",
              "--kubelet-preferred-address-types=InternalIP"));
    } else {
      cmd.addAll(
          List.of("--authorization-mode=RBAC", "--disable-admission-plugins=ServiceAccount"));
    }
    cmd.addAll(apiServerFlags);
    return cmd;
  }

  private static Path writeAdminKubeconfig(Path workDir, LocalPki pki, int apiPort)
      throws IOException {
    Map<String, String> user =
        clientCertUser(pki.dir().resolve("client.crt"), pki.dir().resolve("client.key"));
    return Files.writeString(
        workDir.resolve("kubeconfig"),
        kubeconfigYaml("https://127.0.0.1:" + apiPort, pki.apiServerCert(), user));
  }

  /** A kubeconfig user (for {@link #kubeconfigYaml}) that presents a client certificate. */
  public static Map<String, String> clientCertUser(Path cert, Path key) {
    return Map.of("client-certificate", cert.toString(), "client-key", key.toString());
  }

  /**
   * A kubeconfig of one cluster at {@code server}, verified with {@code caFile}, and one user with
   * the fields {@code user} (e.g. {@link #clientCertUser}, or {@code token}), each on a line of its
   * own as kubectl writes them.
   */
  public static String kubeconfigYaml(String server, Object caFile, Map<String, String> user) {
    StringBuilder fields = new StringBuilder();
    user.forEach((k, v) -> fields.append("\n    ").append(k).append(": ").append(v));
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster:
            server: %s
            certificate-authority: %s
        users:
        - name: user
          user:%s
        contexts:
        - name: local
          context: {cluster: local, user: user}
        current-context: local
        """
        .formatted(server, caFile, fields);
  }

  /**
   * A kubeconfig file read as the product's programs read theirs (fabric8's {@code
   * Config.fromKubeconfig}): its server, CA file and token (a user's token is its {@code
   * getAutoOAuthToken()}), whatever its layout.
   */
  public static Config readKubeconfig(Path file) {
    try {
      return Config.fromKubeconfig(null, Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** A port on 127.0.0.1 that nothing listens on now; the server started next binds it. */
  private static boolean etcdHealthy(int port) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
            .timeout(Duration.ofSeconds(2))
            .build();
    try {
      HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && r.body().contains("\"health\":\"true\"");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for etcd", e);
    }
  }

  /** {@code /readyz} answers ok and the bootstrap controller has made namespace {@code default}. */
  private static boolean apiServerReady(KubernetesClient client) {
    try {
      return "ok".equals(client.raw(client.getMasterUrl() + "readyz"))
          && client.namespaces().withName("default").get() != null;
    } catch (KubernetesClientException e) {
      return false;
    }
  }

  private static void awaitServing(
      String name, Process process, Path logFile, BooleanSupplier serving) {
    Await.serving(name, process, logFile, serving, STARTUP_TIMEOUT);
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

  /** Runs kubectl with {@code stdin} (may be null), killed after {@code limit}. */
  public CommandResult kubectlWithInput(Duration limit, String stdin, String... args) {
    return run(stdin, limit, args);
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
    String yaml =
        kubeconfigYaml(server, client.getConfiguration().getCaCertFile(), Map.of("token", token));
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
   * The directory with the kubeconfig, the certificates, etcd's data and every process's log
   * ({@code <name>.log}); {@link #close} removes it.
   */
  public Path workDir() {
    return workDir;
  }

  /**
   * The Kubernetes release of kube-apiserver, as it reports it ({@code /version}'s gitVersion, for
   * example {@code v1.37.2}).
   */
  public String serverVersion() {
    return client.getKubernetesVersion().getGitVersion();
  }

  /**
   * Upgrades the control plane to the release in {@code newBin} the way an administrator does,
   * component by component on the same etcd, address and certificates: kube-apiserver first
   * (stopped, started from {@code newBin}, awaited ready), then kube-controller-manager and
   * kube-scheduler. Clients, the nodes' and the product's among them, see an API server that went
   * away for a few seconds and came back a release newer.
   */
  public synchronized void upgradeTo(Path newBin) {
    for (String b : List.of("kube-apiserver", "kube-controller-manager", "kube-scheduler")) {
      Prerequisites.requireExecutable(newBin.resolve(b), b);
    }
    long t0 = System.nanoTime();
    bin = newBin;
    try {
      stop(apiServer);
      apiServer =
          startLogged(
              workDir,
              apiServerCommand(
                  bin, serverPki, etcdPort, apiServerPort(), clusterCidr != null, List.of()),
              "kube-apiserver");
      awaitServing(
          "kube-apiserver",
          apiServer,
          workDir.resolve("kube-apiserver.log"),
          () -> apiServerReady(client));
      stop(controllerManager);
      controllerManager = startControllerManager();
      if (scheduler != null) {
        stop(scheduler);
        scheduler = startScheduler();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot upgrade the control plane to " + newBin, e);
    }
    log.info(
        "event=control-plane-upgraded version={} millis={}",
        serverVersion(),
        (System.nanoTime() - t0) / 1_000_000);
  }

  @Override
  public synchronized void close() {
    stop(scheduler);
    stop(controllerManager);
    client.close();
    stop(apiServer);
    stop(etcd);
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

  private Process startControllerManager() throws IOException {
    List<String> controllers = new ArrayList<>(List.of(CONTROLLERS));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                bin.resolve("kube-controller-manager").toString(),
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
              "--root-ca-file=" + serverPki.apiServerCert()));
    }
    cmd.add("--controllers=" + String.join(",", controllers));
    return startLogged(workDir, cmd, "kube-controller-manager");
  }

  private Process startScheduler() throws IOException {
    return startLogged(
        workDir,
        List.of(
            bin.resolve("kube-scheduler").toString(),
            "--kubeconfig=" + kubeconfig,
            "--authentication-kubeconfig=" + kubeconfig,
            "--authorization-kubeconfig=" + kubeconfig,
            "--leader-elect=false",
            "--bind-address=127.0.0.1",
            "--secure-port=0",
            "--v=1"),
        "kube-scheduler");
  }

  private static Process startLogged(Path workDir, List<String> cmd, String name)
      throws IOException {
    Path logFile = workDir.resolve(name + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
            .start();
    log.info("event={}-started log={}", name, logFile);
    return p;
  }
}
