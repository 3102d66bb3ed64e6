package dev.cnioperator.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CRI client against a real containerd 1.6 that runs Debian's bridge and host-local plugins:
 * sandboxes started with crictl and with the client get an address, containerd writes libcni's
 * cache entry, the client lists them with their Kubernetes metadata, and stopping them releases
 * both.
 */
class ContainerdCriIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SUBNET_PREFIX = "10.200.100.";
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  @TempDir Path testDir;

  private String network;
  private Path confDir;
  private Path ipamDir;
  private ContainerdFixture containerd;
  private CriRuntimeClient client;

  @BeforeEach
  void setUp() throws IOException {
    Prerequisites.requireRoot();
    network = TestNames.unique("cri");
    confDir = Files.createDirectories(testDir.resolve("net.d"));
    ipamDir = testDir.resolve("ipam");
  }

  @AfterEach
  void tearDown() throws IOException {
    try {
      if (client != null) {
        client.close();
      }
      if (containerd != null) {
        containerd.close();
      }
    } finally {
      Commands.run("ip", "link", "del", network);
      for (Path entry : cacheEntries()) {
        Files.deleteIfExists(entry);
      }
    }
  }

  @Test
  void sandboxFromCrictlGetsAnAddressACacheEntryAndIsListedReadyUntilStopped() throws Exception {
    startContainerd(true);
    String uid = UUID.randomUUID().toString();

    long t0 = System.nanoTime();
    String id = containerd.runPodSandbox("web-1", "shop", uid);
    long runMillis = (System.nanoTime() - t0) / 1_000_000;

    JsonNode inspect =
        JSON.readTree(containerd.crictl("inspectp", id).orThrow("inspectp").stdout());
    String ip = inspect.path("status").path("network").path("ip").asText();
    assertThat(ip).startsWith(SUBNET_PREFIX);
    assertThat(ipamDir.resolve(network).resolve(ip)).exists();

    Path cacheEntry = cacheDir().resolve(network + "-" + id + "-eth0");
    assertThat(cacheEntry).exists();
    JsonNode cached = JSON.readTree(cacheEntry.toFile());
    assertThat(cached.path("containerId").asText()).isEqualTo(id);
    assertThat(cached.path("networkName").asText()).isEqualTo(network);
    assertThat(cached.path("cniArgs").toString())
        .contains("K8S_POD_NAME", "web-1", "K8S_POD_NAMESPACE", "shop", uid);

    Path netns = Path.of(networkNamespace(inspect));
    assertThat(netns).startsWith(containerd.stateDir());
    String addresses =
        Commands.run("nsenter", "--net=" + netns, "ip", "-o", "addr", "show")
            .orThrow("ip addr in the sandbox")
            .stdout();
    assertThat(addresses)
        .contains("eth0")
        .contains(ip + "/24")
        .contains("lo")
        .contains("127.0.0.1");

    List<PodSandbox> listed = client.listPodSandboxes();
    assertThat(listed).extracting(PodSandbox::id).containsExactly(id);
    PodSandbox sandbox = listed.get(0);
    assertThat(sandbox.ready()).isTrue();
    assertThat(sandbox.name()).isEqualTo("web-1");
    assertThat(sandbox.namespace()).isEqualTo("shop");
    assertThat(sandbox.uid()).isEqualTo(uid);
    assertThat(sandbox.labels()).containsEntry("io.kubernetes.pod.uid", uid);
    assertThat(sandbox.createdAt())
        .isBetween(java.time.Instant.now().minusSeconds(120), java.time.Instant.now());
    assertThat(client.podSandboxStatus(id).primaryIp()).contains(ip);
    assertThat(client.status().networkReady().status()).isTrue();

    t0 = System.nanoTime();
    containerd.crictl("stopp", id).orThrow("stopp");
    long stopMillis = (System.nanoTime() - t0) / 1_000_000;
    assertThat(cacheEntry).doesNotExist();
    assertThat(ipamDir.resolve(network).resolve(ip)).doesNotExist();
    assertThat(client.listPodSandboxes())
        .singleElement()
        .satisfies(s -> assertThat(s.state()).isEqualTo(PodSandbox.State.NOTREADY));

    containerd.crictl("rmp", id).orThrow("rmp");
    assertThat(client.listPodSandboxes()).isEmpty();
    assertThat(netns).doesNotExist();
    System.out.printf(
        "containerd-timing runp=%dms stopp=%dms snapshotter=%s%n",
        runMillis, stopMillis, containerd.snapshotter());
  }

  @Test
  void clientRunsStopsAndRemovesItsOwnSandbox() throws Exception {
    startContainerd(true);
    String uid = UUID.randomUUID().toString();

    CriSandboxes sandboxes = new CriSandboxes(client);
    String id =
        sandboxes.run(PodSandboxConfig.of("db-0", "data", uid).withLabels(Map.of("app", "db")));

    PodSandboxStatus status = client.podSandboxStatus(id);
    assertThat(status.sandbox().ready()).isTrue();
    assertThat(status.sandbox().labels()).containsEntry("app", "db");
    assertThat(status.primaryIp())
        .hasValueSatisfying(ip -> assertThat(ip).startsWith(SUBNET_PREFIX));
    assertThat(cacheDir().resolve(network + "-" + id + "-eth0")).exists();
    String crictlPods = containerd.crictl("pods", "--id", id, "-q").orThrow("pods").stdout();
    assertThat(crictlPods.strip()).isEqualTo(id);

    sandboxes.stop(id);
    assertThat(cacheDir().resolve(network + "-" + id + "-eth0")).doesNotExist();
    sandboxes.remove(id);

    assertThatThrownBy(() -> client.podSandboxStatus(id))
        .isInstanceOfSatisfying(
            CriException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(CriException.Reason.NOT_FOUND);
              assertThat(e.getMessage()).contains(containerd.socket().toString());
            });
  }

  @Test
  void networkIsNotReadyUntilAConfigurationAppearsInTheConfDir() throws Exception {
    startContainerd(false);

    RuntimeStatus before = client.status();
    assertThat(before.runtimeReady().status()).isTrue();
    assertThat(before.networkReady().status()).isFalse();
    assertThat(before.networkReady().reason()).isEqualTo("NetworkPluginNotReady");

    writeConflist();
    // containerd watches its conf_dir and reloads the configuration by itself.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(() -> assertThat(client.status().networkReady().status()).isTrue());
  }

  @Test
  void killedContainerdIsUnreadableAndKnowsItsSandboxAgainAfterRestart() throws Exception {
    startContainerd(true);
    String id = containerd.runPodSandbox("web-2", "shop", UUID.randomUUID().toString());

    containerd.kill9();
    assertThatThrownBy(() -> client.listPodSandboxes())
        .isInstanceOfSatisfying(
            CriException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(CriException.Reason.UNAVAILABLE);
              assertThat(e.socket()).isEqualTo(containerd.socket());
            });
    // The sandbox outlives its runtime, as on a node: its cache entry and address stay.
    assertThat(cacheDir().resolve(network + "-" + id + "-eth0")).exists();

    long t0 = System.nanoTime();
    containerd.restart();
    System.out.printf("containerd-timing restart=%dms%n", (System.nanoTime() - t0) / 1_000_000);
    // The same client reads the restarted runtime at once, without waiting out a back-off.
    assertThat(client.listPodSandboxes())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.id()).isEqualTo(id);
              assertThat(s.ready()).isTrue();
            });
  }

  @Test
  void aSandboxContainerdLostIsNoLongerListedWhileItsCacheEntryAndAddressRemain() throws Exception {
    startContainerd(true);
    String lost = containerd.runPodSandbox("web-3", "shop", UUID.randomUUID().toString());
    String kept = containerd.runPodSandbox("web-4", "shop", UUID.randomUUID().toString());
    String lostIp = client.podSandboxStatus(lost).primaryIp().orElseThrow();

    containerd.loseSandbox(lost);

    assertThat(client.listPodSandboxes())
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.id()).isEqualTo(kept);
              assertThat(s.ready()).isTrue();
            });
    assertThatThrownBy(() -> client.podSandboxStatus(lost))
        .isInstanceOfSatisfying(
            CriException.class,
            e -> assertThat(e.reason()).isEqualTo(CriException.Reason.NOT_FOUND));
    // Nobody ran the DEL: this is the stale attachment the agent must find and release.
    assertThat(cacheDir().resolve(network + "-" + lost + "-eth0")).exists();
    assertThat(ipamDir.resolve(network).resolve(lostIp)).exists();
  }

  private void startContainerd(boolean withNetwork) throws Exception {
    if (withNetwork) {
      writeConflist();
    }
    long t0 = System.nanoTime();
    containerd = ContainerdFixture.start(testDir, confDir, ToolPaths.debianPluginDir());
    System.out.printf(
        "containerd-timing start=%dms snapshotter=%s%n",
        (System.nanoTime() - t0) / 1_000_000, containerd.snapshotter());
    client = CriRuntimeClient.connect(containerd.socket(), Duration.ofSeconds(30));
  }

  /**
   * bridge with host-local (cniVersion 1.0.0, Debian's plugins). containerd 1.6 brings the
   * sandbox's {@code lo} up itself with the loopback plugin of the same bin dir, so the list holds
   * no loopback entry (a chained loopback would be called with CNI_IFNAME=eth0).
   */
  private void writeConflist() throws IOException {
    Files.writeString(
        confDir.resolve("10-" + network + ".conflist"),
        """
        {
          "cniVersion": "1.0.0",
          "name": "%s",
          "plugins": [
            {
              "type": "bridge",
              "bridge": "%s",
              "isGateway": true,
              "ipMasq": false,
              "ipam": {
                "type": "host-local",
                "dataDir": "%s",
                "ranges": [[{"subnet": "10.200.100.0/24"}]]
              }
            }
          ]
        }
        """
            .formatted(network, network, ipamDir));
  }

  private static String networkNamespace(JsonNode inspect) {
    for (JsonNode ns : inspect.path("info").path("runtimeSpec").path("linux").path("namespaces")) {
      if (ns.path("type").asText().equals("network")) {
        return ns.path("path").asText();
      }
    }
    throw new AssertionError("crictl inspectp shows no network namespace: " + inspect);
  }

  private static Path cacheDir() {
    return ContainerdFixture.CNI_CACHE_DIR.resolve("results");
  }

  private List<Path> cacheEntries() throws IOException {
    if (network == null || !Files.isDirectory(cacheDir())) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(cacheDir())) {
      return entries.filter(p -> p.getFileName().toString().startsWith(network + "-")).toList();
    }
  }
}
