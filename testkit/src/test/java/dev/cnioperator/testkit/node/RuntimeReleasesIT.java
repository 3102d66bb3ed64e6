package dev.cnioperator.testkit.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.crio.CrioRelease;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node of each runtime release users run (containerd: Debian's 1.6, 1.7, 2.x; CRI-O 1.34), one
 * cluster for all: the node starts with its runtime at the socket of the chart's profile for it, a
 * pod gets an address from a bridge network in the node's conf dir, and what the product depends on
 * is recorded: whether libcni's cache entry holds the netns (libcni 1.2+: containerd 2.x, CRI-O),
 * whether the runtime calls CNI STATUS (on 1.1.0 networks: containerd 2.x, and CRI-O until the
 * network is first ready) and CHECK (CRI-O, after each ADD). The node leaves nothing behind.
 */
class RuntimeReleasesIT {
  private static final String NETWORK = "releases-it";
  private static final String NAMESPACE = "releases-it";
  private static final ObjectMapper JSON = new ObjectMapper();

  private static KubeletCluster cluster;

  @BeforeAll
  static void start() {
    cluster = KubeletCluster.start(0);
    PausePods.createNamespace(cluster.controlPlane().client(), NAMESPACE);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static Stream<RuntimeRelease> releases() {
    return Stream.<RuntimeRelease>concat(
        Arrays.stream(ContainerdRelease.values()), Arrays.stream(CrioRelease.values()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("releases")
  void aPodGetsAnAddressAndTheCacheAndStatusAreAsTheReleaseMakesThem(RuntimeRelease release)
      throws IOException {
    long t0 = System.nanoTime();
    KubeletNode node = cluster.addNode(release);
    long startMs = (System.nanoTime() - t0) / 1_000_000;
    System.out.printf(
        "event=release-node-started release=%s node=%s ms=%d%n",
        label(release), node.name(), startMs);
    KubernetesClient client = cluster.controlPlane().client();
    Path verbs = node.dir().resolve("cni-verbs.log");
    try {
      String podCidr = awaitPodCidr(client, node);
      installVerbLoggingBridge(node, verbs);
      Files.writeString(
          node.cniConfDir().resolve("10-" + NETWORK + ".conflist"), conflist(podCidr));

      String podName = "p-" + label(release).toLowerCase().replace('_', '-');
      Pod running = PausePods.createRunning(client, withCriSocketDir(node, podName));
      String ip = running.getStatus().getPodIP();
      assertThat(ip).startsWith(podCidr.substring(0, podCidr.lastIndexOf('.') + 1));

      String sandboxId = crictl(node, "pods", "--name", podName, "-q");
      assertThat(sandboxId).isNotEmpty();
      if (release instanceof ContainerdRelease) {
        // The node's socket dir is its /run/containerd: the shims' sockets, which every release
        // puts under /run/containerd/s, are in the node's own directory, not the machine's.
        List<Path> shimSockets;
        try (var files = Files.list(node.containerd().socket().resolveSibling("s"))) {
          shimSockets = files.toList();
        }
        assertThat(shimSockets).isNotEmpty();
        for (Path socket : shimSockets) {
          assertThat(Path.of("/run/containerd/s").resolve(socket.getFileName())).doesNotExist();
        }
      } else {
        // CRI-O keeps its socket and state in the node's own /run: nothing on the machine's.
        assertThat(Path.of("/run/crio")).doesNotExist();
      }

      assertThePodReachesItsNodesContainerdAtTheChartsDefault(node, sandboxId);

      JsonNode entry =
          JSON.readTree(
              node.cniStateDir()
                  .resolve("results")
                  .resolve(NETWORK + "-" + sandboxId + "-eth0")
                  .toFile());
      String resultVersion = entry.at("/result/cniVersion").asText();
      System.out.printf(
          "event=release-cni-cache release=%s netns=%s resultCniVersion=%s keys=%s%n",
          label(release), entry.path("netns").asText("(none)"), resultVersion, fieldNames(entry));
      if (release instanceof CrioRelease) {
        // libcni 1.3: the netns in the cache, 1.1.0 picked; CRI-O polls STATUS until the network
        // is first ready, and CHECKs each attachment right after its ADD.
        assertThat(entry.path("netns").asText()).startsWith("/var/run/netns/");
        assertThat(resultVersion).isEqualTo("1.1.0");
        assertThat(Files.readAllLines(verbs)).contains("STATUS", "CHECK");
      } else if (release == ContainerdRelease.V2_X) {
        assertThat(entry.path("netns").asText()).startsWith("/var/run/netns/");
        assertThat(resultVersion).isEqualTo("1.1.0");
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(Files.readAllLines(verbs)).contains("STATUS"));
      } else {
        assertThat(entry.has("netns")).isFalse();
        assertThat(resultVersion).isEqualTo("1.0.0");
        // The node turned Ready (the kubelet asked containerd's CRI Status many times by then).
        assertThat(Files.readAllLines(verbs)).doesNotContain("STATUS");
      }

      client.pods().inNamespace(NAMESPACE).withName(podName).withGracePeriod(0).delete();
      Path reservation = node.cniStateDir().resolve("networks").resolve(NETWORK).resolve(ip);
      await().atMost(Duration.ofSeconds(60)).until(() -> !Files.exists(reservation));
      List<String> seen = Files.readAllLines(verbs);
      assertThat(seen).contains("ADD", "DEL");
      System.out.printf(
          "event=release-cni-verbs release=%s nodeLifeMs=%d verbs=%s%n",
          label(release), (System.nanoTime() - t0) / 1_000_000, verbCounts(seen));
    } finally {
      node.close();
    }
    assertNothingLeftOf(node);
  }

  /** The release's enum constant, of CRI-O's prefixed: {@code DEBIAN_1_6}, {@code crio-V1_34}. */
  private static String label(RuntimeRelease release) {
    return release instanceof CrioRelease crio
        ? "crio-" + crio.name()
        : ((ContainerdRelease) release).name();
  }

  /**
   * A pod mounting the directory of the node's CRI socket read-only at the same path, as the
   * chart's agent DaemonSet mounts that of {@code agent.hostPaths.profiles.<profile>.criSocket}.
   */
  private static Pod withCriSocketDir(KubeletNode node, String name) {
    String socketDir = Path.of(node.release().criSocket()).getParent().toString();
    return PausePods.on(node, NAMESPACE, name)
        .editSpec()
        .addNewVolume()
        .withName("cri")
        .withNewHostPath()
        .withPath(socketDir)
        .withType("Directory")
        .endHostPath()
        .endVolume()
        .editFirstContainer()
        .addNewVolumeMount()
        .withName("cri")
        .withMountPath(socketDir)
        .withReadOnly(true)
        .endVolumeMount()
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * Through the container's root ({@code /proc/<pid>/root}), the socket at the chart's default path
   * answers CRI Version as the node's own containerd does.
   */
  private static void assertThePodReachesItsNodesContainerdAtTheChartsDefault(
      KubeletNode node, String sandboxId) {
    String containerId = crictl(node, "ps", "--pod", sandboxId, "-q");
    String pid =
        crictl(node, "inspect", "-o", "go-template", "--template", "{{.info.pid}}", containerId);
    String inPod = "unix:///proc/" + pid + "/root" + node.release().criSocket();
    String viaPod =
        Commands.run(ToolPaths.crictl().toString(), "--runtime-endpoint", inPod, "version")
            .orThrow("crictl version at " + inPod)
            .stdout()
            .strip();
    assertThat(viaPod).isEqualTo(crictl(node, "version"));
    System.out.printf(
        "event=release-cri-version release=%s %s%n",
        label(node.release()), viaPod.lines().filter(l -> l.startsWith("Runtime")).toList());
  }

  /** crictl on the node's runtime, through its socket on the host; its output, stripped. */
  private static String crictl(KubeletNode node, String... args) {
    return node.runtime().crictl(args).orThrow("crictl " + String.join(" ", args)).stdout().strip();
  }

  private static void assertNothingLeftOf(KubeletNode node) {
    assertThat(Commands.run("ip", "netns", "list").stdout())
        .doesNotContain(node.networkNamespace());
    assertThat(Commands.run("ip", "link", "show", node.hostInterface()).ok()).isFalse();
    assertThat(node.dir()).doesNotExist();
    assertThat(Commands.run("grep", "-F", node.dir().toString(), "/proc/self/mountinfo").stdout())
        .isEmpty();
    assertThat(Commands.run("pgrep", "-f", node.dir().toString()).stdout()).isEmpty();
    assertThat(Commands.run("pgrep", "-f", "hostname-override=" + node.name()).stdout()).isEmpty();
  }

  private static String awaitPodCidr(KubernetesClient client, KubeletNode node) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Node n = client.nodes().withName(node.name()).get();
              return n != null && n.getSpec().getPodCIDR() != null;
            });
    return client.nodes().withName(node.name()).get().getSpec().getPodCIDR();
  }

  /**
   * {@code verblog}: the bridge plugin behind a script that appends each CNI verb to {@code log},
   * so the test sees which verbs containerd calls.
   */
  private static void installVerbLoggingBridge(KubeletNode node, Path log) throws IOException {
    Path wrapper = node.hostPath("/opt/cni/bin/verblog");
    Files.writeString(
        wrapper,
        "#!/bin/sh\necho \"$CNI_COMMAND\" >> '%s'\nexec \"$(dirname \"$0\")/bridge\"\n"
            .formatted(log));
    Files.setPosixFilePermissions(wrapper, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /**
   * 1.0.0 for libcni before 1.2 (containerd 1.x), 1.1.0 where libcni knows it ({@code cniVersions}
   * picks the highest the runtime supports), so one conflist serves every release.
   */
  private static String conflist(String subnet) {
    return """
        {"cniVersion": "1.0.0", "cniVersions": ["1.0.0", "1.1.0"], "name": "%s", "plugins": [
          {"type": "verblog", "bridge": "cni0", "isGateway": true,
           "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]]}}]}
        """
        .formatted(NETWORK, subnet);
  }

  private static Map<String, Long> verbCounts(List<String> verbs) {
    return verbs.stream()
        .collect(Collectors.groupingBy(v -> v, TreeMap::new, Collectors.counting()));
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new java.util.ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
