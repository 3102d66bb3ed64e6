package dev.cnioperator.e2e.k3s;

import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * A one-node k3s cluster in a Testcontainers container, with the product's images in its
 * containerd, and the node's file system reachable for the checks a test makes on the node.
 */
final class K3sCluster implements AutoCloseable {
  /** Overrides the k3s image; the chart needs Kubernetes 1.35 or newer. */
  static final String K3S_IMAGE_ENV = "CNI_OPERATOR_K3S_IMAGE";

  /**
   * The first k3s docker images whose containerd reads plugins from the static bin dir the chart's
   * k3s profile uses are v1.32.3, v1.31.7, v1.30.11 and v1.29.15 (k3s-io/k3s#11497); older ones
   * read /bin. The default is a release the chart's kubeVersion accepts (k3s-io/k3s#13835).
   */
  static final String DEFAULT_K3S_IMAGE = "rancher/k3s:v1.35.3-k3s1";

  private static final Pattern CNI_BIN_DIR =
      Pattern.compile("(?m)^\\s*bin_dirs?\\s*=\\s*\\[?\\s*[\"']([^\"']+)[\"']");
  private static final Logger log = LoggerFactory.getLogger(K3sCluster.class);

  private final K3sContainer k3s;
  private final Path kubeconfig;
  private final KubernetesClient client;
  private final String nodeName;

  private K3sCluster(K3sContainer k3s, Path kubeconfig, KubernetesClient client, String nodeName) {
    this.k3s = k3s;
    this.kubeconfig = kubeconfig;
    this.client = client;
    this.nodeName = nodeName;
  }

  /** Starts k3s and imports {@code images}' tarballs into its containerd. */
  static K3sCluster start(K3sImages images, Path workDir) {
    String image = System.getenv().getOrDefault(K3S_IMAGE_ENV, DEFAULT_K3S_IMAGE);
    K3sContainer k3s = new K3sContainer(DockerImageName.parse(image));
    k3s.start();
    try {
      shareMounts(k3s);
      for (Path tar : images.tarballs()) {
        importImage(k3s, tar);
      }
      Path kubeconfig = workDir.resolve("k3s.kubeconfig");
      Files.writeString(kubeconfig, k3s.getKubeConfigYaml());
      KubernetesClient client =
          new KubernetesClientBuilder()
              .withConfig(Config.fromKubeconfig(k3s.getKubeConfigYaml()))
              .build();
      // Read while the k3s container is the only Node: tests add Node objects of their own.
      String nodeName =
          await()
              .atMost(Duration.ofMinutes(2))
              .until(() -> client.nodes().list().getItems(), nodes -> !nodes.isEmpty())
              .get(0)
              .getMetadata()
              .getName();
      log.info("event=k3s-started image={} node={} kubeconfig={}", image, nodeName, kubeconfig);
      return new K3sCluster(k3s, kubeconfig, client, nodeName);
    } catch (IOException | RuntimeException e) {
      k3s.stop();
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  /**
   * Makes the k3s container's mounts shared, as on a real node: the agent mounts the netns dir with
   * HostToContainer propagation, which the runtime refuses on a private mount ("is not a shared or
   * slave mount"), and a Docker container's mounts are private.
   */
  private static void shareMounts(K3sContainer k3s) {
    ExecResult r = exec(k3s, "mount", "--make-rshared", "/");
    if (r.getExitCode() != 0) {
      log.warn("event=make-rshared-failed stderr={}", r.getStderr().strip());
    }
  }

  /** {@code ctr images import} into the namespace the kubelet's containerd uses. */
  private static void importImage(K3sContainer k3s, Path tar) {
    String inContainer = "/tmp/" + tar.getParent().getParent().getFileName() + "-image.tar";
    k3s.copyFileToContainer(MountableFile.forHostPath(tar), inContainer);
    ExecResult r = exec(k3s, "ctr", "-n", "k8s.io", "images", "import", inContainer);
    if (r.getExitCode() != 0) {
      throw new IllegalStateException("ctr images import " + tar + ": " + r.getStderr());
    }
    log.info("event=image-imported tarball={}", tar);
  }

  KubernetesClient client() {
    return client;
  }

  Path kubeconfigFile() {
    return kubeconfig;
  }

  /** The cluster's only node: the k3s container itself. */
  String nodeName() {
    return nodeName;
  }

  /** Where the node's containerd looks for CNI plugins, from the config k3s wrote for it. */
  Optional<String> containerdCniBinDir() {
    return readFile("/var/lib/rancher/k3s/agent/etc/containerd/config.toml")
        .flatMap(K3sCluster::cniBinDir);
  }

  /**
   * The first CNI bin dir of a containerd config ({@code bin_dir = "..."} or {@code bin_dirs =
   * [...]}).
   */
  static Optional<String> cniBinDir(String configToml) {
    Matcher m = CNI_BIN_DIR.matcher(configToml);
    return m.find() ? Optional.of(m.group(1)) : Optional.empty();
  }

  CommandResult kubectl(String... args) {
    return kubectlWithInput(null, args);
  }

  CommandResult kubectlWithInput(String stdin, String... args) {
    return kubectlWithInput(Duration.ofMinutes(2), stdin, args);
  }

  /** kubectl with {@code stdin} (may be null), killed after {@code limit}. */
  CommandResult kubectlWithInput(Duration limit, String stdin, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(ToolPaths.kubectl().toString());
    cmd.add("--kubeconfig=" + kubeconfig);
    cmd.addAll(List.of(args));
    return Commands.run(
        cmd, Map.of(), stdin == null ? null : stdin.getBytes(StandardCharsets.UTF_8), limit);
  }

  /** A client that authenticates with {@code token} only. */
  KubernetesClient clientForToken(String token) {
    Config admin = client.getConfiguration();
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(Config.empty())
                .withMasterUrl(admin.getMasterUrl())
                .withCaCertData(admin.getCaCertData())
                .withOauthToken(token)
                .build())
        .build();
  }

  /** The content of a file on the node, or empty when there is none. */
  Optional<String> readFile(String path) {
    try {
      return Optional.of(
          k3s.copyFileFromContainer(
              path, in -> new String(in.readAllBytes(), StandardCharsets.UTF_8)));
    } catch (NotFoundException e) {
      return Optional.empty();
    }
  }

  void writeFile(String path, String content) {
    k3s.copyFileToContainer(Transferable.of(content), path);
  }

  void removeFile(String path) {
    ExecResult r = exec(k3s, "rm", "-f", path);
    if (r.getExitCode() != 0) {
      throw new IllegalStateException("rm " + path + " on the node: " + r.getStderr());
    }
  }

  private static ExecResult exec(K3sContainer k3s, String... cmd) {
    try {
      return k3s.execInContainer(cmd);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted: " + String.join(" ", cmd), e);
    }
  }

  @Override
  public void close() {
    client.close();
    k3s.stop();
  }
}
