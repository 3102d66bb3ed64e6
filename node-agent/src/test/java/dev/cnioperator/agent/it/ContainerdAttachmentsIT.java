package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.IpamSummary;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent against attachments a real containerd made through its CRI plugin: containerd loads the
 * agent's conflist, runs the plugins for each pod sandbox and writes libcni's cache; the agent
 * CHECKs those attachments, reports the runtime's own NetworkReady, and cleans only what containerd
 * lost.
 */
class ContainerdAttachmentsIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);
  // containerd's CRI plugin runs loopback for every sandbox itself.
  private static final NodePlugin LOOPBACK =
      new NodePlugin().setName("loopback").setSource("bundled");

  private final long started = System.nanoTime();
  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private ContainerdFixture containerd;
  private AgentProcess agent;
  private String network;
  private final List<Pod> pods = new ArrayList<>();
  private final List<String> lostSandboxes = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("ctd", ToolPaths.pluginDir());
    network = TestNames.unique("ctd");
    containerd = ContainerdFixture.start(node.root, node.paths.confDir(), node.paths.binDir());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    containerd.close();
    // containerd ran loopback as its own network for each sandbox; nobody DELs a lost one's.
    for (String id : lostSandboxes) {
      Files.deleteIfExists(
          ContainerdFixture.CNI_CACHE_DIR.resolve("results").resolve("cni-loopback-" + id + "-lo"));
    }
    for (Pod p : pods) {
      Pods.delete(cp.client(), p.getMetadata().getName());
    }
    cniNodes.delete(node.name);
    node.close();
    System.out.printf("containerd-suite test-seconds=%.1f%n", (System.nanoTime() - started) / 1e9);
  }

  @Test
  void readyOnlyOnceContainerdHasLoadedTheAgentsFileAndNotWhileAForeignFileBreaksItsReload()
      throws Exception {
    cniNodes.put(node.name, List.of(), List.of(LOOPBACK));
    startAgent();
    // Nothing of the agent's is on the node yet: nothing for the runtime to load, so ready.
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(runtime().getNetworkReady()).isFalse();
              assertThat(readyz().statusCode()).isEqualTo(200);
            });

    cniNodes.put(node.name, List.of(network(10, 5, 0)), List.of(LOOPBACK));
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(readyz().statusCode()).isEqualTo(200);
              assertThat(runtime().getLoadedNetwork()).isEqualTo(network);
              assertThat(runtime().getLoadedSha256()).isEqualTo(status().getAppliedSha256());
            });

    // A foreign file sorting first that containerd cannot parse: it drops the pod network.
    Path broken = node.paths.confDir().resolve("00-broken.conflist");
    Files.writeString(broken, "not json");
    try {
      await()
          .atMost(CONVERGE)
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                HttpResponse<String> r = readyz();
                assertThat(r.statusCode()).isEqualTo(503);
                assertThat(r.body()).contains("NetworkReady=false").contains("00-broken.conflist");
                assertThat(runtime().getMessage()).contains("00-broken.conflist");
              });
      assertThat(Files.readString(broken)).isEqualTo("not json");
    } finally {
      Files.delete(broken);
    }
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(readyz().statusCode()).isEqualTo(200));
  }

  @Test
  void aRuntimeThatLoadsAnotherDirectoryKeepsTheAgentUnreadyAndItsProbeFailsNamingBoth()
      throws Exception {
    // A chart profile that does not match the node: containerd reads a directory the agent does
    // not write to. The agent's own probe would pass; the runtime never loads the file.
    containerd.close();
    Path elsewhere = Files.createDirectories(node.root.resolve("runtime-net.d"));
    containerd = ContainerdFixture.start(node.root, elsewhere, node.paths.binDir());
    cniNodes.put(
        node.name,
        List.of(network(12, 5, 0).setProbe(new RolloutProbe().setEnabled(true))),
        List.of(LOOPBACK));
    startAgent();
    String why = "loads CNI configuration from " + elsewhere;
    String ours = "this agent writes to " + node.paths.confDir();
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(runtime().getConfDir()).isEqualTo(elsewhere.toString());
              HttpResponse<String> r = readyz();
              assertThat(r.statusCode()).isEqualTo(503);
              assertThat(r.body()).contains(why).contains(ours);
              assertThat(status().getProbe().getResult()).isEqualTo(ProbeResult.Failed);
              assertThat(status().getProbe().getMessage()).contains(why).contains(ours);
            });
    try (Stream<Path> written = Files.list(node.paths.confDir());
        Stream<Path> read = Files.list(elsewhere)) {
      assertThat(written.map(f -> f.getFileName().toString())).anyMatch(f -> f.contains(network));
      assertThat(read).isEmpty();
    }
  }

  private HttpResponse<String> readyz() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + agent.port() + "/readyz"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void runtimeNetworkReadyTurnsTrueWithTheConflistAndItsSandboxIsCheckedHealthyThenFailing()
      throws Exception {
    cniNodes.put(node.name, List.of(), List.of(LOOPBACK));
    startAgent();
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              RuntimeNetwork r = runtime();
              assertThat(r.getNetworkReady()).isFalse();
              assertThat(r.getReason()).isEqualTo("NetworkPluginNotReady");
              assertThat(r.getEndpoint()).isEqualTo(containerd.socket().toString());
            });

    NodeNetwork spec =
        network(10, 5, 0).setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(5));
    cniNodes.put(node.name, List.of(spec), List.of(LOOPBACK));
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(runtime().getNetworkReady()).isTrue();
              assertThat(runtime().getReason()).isNull();
            });

    Pod pod = Pods.create(cp.client(), node.name, TestNames.unique("web"));
    pods.add(pod);
    RuntimeSandbox sandbox = run(pod);
    assertThat(sandbox.ip()).startsWith("10.216.10.");
    assertThat(sandbox.netns()).startsWith(containerd.stateDir());
    assertThat(sandbox.eth0()).contains(sandbox.ip() + "/24");
    assertThat(cached()).containsExactly(sandbox.id());
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = status().getAttachments();
              assertThat(a.getTotal()).isEqualTo(1);
              assertThat(a.getHealthy()).isEqualTo(1);
            });

    sandbox.breakInterface();
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = status().getAttachments();
              assertThat(a.getHealthy()).isZero();
              FailingAttachment f = a.getFailing().get(0);
              assertThat(f.getContainerId()).isEqualTo(sandbox.id());
              assertThat(f.getPod()).isEqualTo(pod.getMetadata().getName());
              assertThat(f.getNamespace()).isEqualTo("default");
              assertThat(f.getIfName()).isEqualTo("eth0");
            });
    await().atMost(CONVERGE).until(() -> !checkFailedEventsOn(pod).isEmpty());
    Event e = checkFailedEventsOn(pod).get(0);
    assertThat(e.getType()).isEqualTo("Warning");
    assertThat(e.getMessage()).contains(network).contains("eth0");
  }

  /**
   * containerd 1.6 caches no netns in libcni's cache; without the CRI socket the agent cannot learn
   * it, and a CHECK without one fails whatever the pod's state. The attachment is reported as not
   * checked, with the reason: never failing, never a Warning on the pod, healthy or broken. The
   * agent is given a socket path where nothing listens, as the chart's default profile gives it on
   * a node whose runtime is elsewhere.
   */
  @Test
  void withoutTheCriSocketAnAttachmentWhoseNetnsIsUnknownIsUncheckedNeverFailing()
      throws Exception {
    NodeNetwork spec =
        network(12, 5, 0).setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(5));
    cniNodes.put(node.name, List.of(spec), List.of(LOOPBACK));
    startAgent();
    awaitNetworkReady();
    agent.close();
    startAgent("--cri-socket=" + node.root.resolve("run/elsewhere/cri.sock"));
    Pod pod = Pods.create(cp.client(), node.name, TestNames.unique("web"));
    pods.add(pod);
    RuntimeSandbox sandbox = run(pod);
    assertThat(cached()).containsExactly(sandbox.id());

    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = status().getAttachments();
              assertThat(a.getTotal()).isEqualTo(1);
              assertThat(a.getUnchecked()).isEqualTo(1);
              assertThat(a.getHealthy()).isZero();
              assertThat(a.getFailing()).isEmpty();
              assertThat(a.getUncheckedReason())
                  .contains("names no network namespace")
                  .contains("nothing listened at the runtime's socket");
            });
    sandbox.breakInterface();
    agent.awaitLogged(AgentProcess.checkPass(network), 3);
    AttachmentSummary after = status().getAttachments();
    assertThat(after.getUnchecked()).isEqualTo(1);
    assertThat(after.getFailing()).isEmpty();
    assertThat(checkFailedEventsOn(pod)).isEmpty();
    assertThat(cniNodes.get(node.name).getStatus().getSummary().getUncheckedAttachments())
        .isEqualTo(1);
    assertThat(agent.log()).contains("event=cri-socket-absent");
  }

  @Test
  void sandboxesStoppedAndRemovedNormallyLeaveNothingForTheAgentToClean() throws Exception {
    // No CHECK: its lastCheckTime would make status writes of its own.
    NodeNetwork spec = network(11, 0, 0.5).setCheck(new NetworkCheck().setEnabled(false));
    cniNodes.put(node.name, List.of(spec), List.of(LOOPBACK));
    startAgent();
    awaitNetworkReady();

    List<RuntimeSandbox> sandboxes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      sandboxes.add(run("ok-" + i));
    }
    assertThat(reservations()).hasSize(3);
    for (RuntimeSandbox s : sandboxes) {
      containerd.crictl("stopp", s.id()).orThrow("crictl stopp " + s.id());
      containerd.crictl("rmp", s.id()).orThrow("crictl rmp " + s.id());
    }
    // containerd ran DEL: reservations and cache entries are gone before the agent looks.
    assertThat(reservations()).isEmpty();
    assertThat(cached()).isEmpty();
    // Several cleanup passes (every second with a zero grace period) find nothing.
    assertThat(agent.awaitLogged(AgentProcess.cleanupPass(network), 3))
        .allSatisfy(pass -> assertThat(pass).contains(" stale=0 released=0 "));
    IpamSummary ipam = status().getIpam();
    assertThat(ipam.getReservations()).isZero();
    assertThat(ipam.getStale()).isZero();
    assertThat(ipam.getReclaimed() == null ? 0 : ipam.getReclaimed()).isZero();
    assertThat(agent.log()).doesNotContain("event=stale-released");

    // Steady state: the runtime probe (every 5 s) and the cleanup passes write nothing. The probe
    // logs only a change; a dozen cleanup passes, a second or more apart, span two of its periods.
    String before = cniNodes.get(node.name).getMetadata().getResourceVersion();
    agent.awaitLogged(AgentProcess.cleanupPass(network), 12);
    assertThat(cniNodes.get(node.name).getMetadata().getResourceVersion()).isEqualTo(before);
  }

  @Test
  void afterACrashOnlyTheSandboxesContainerdLostAreReleasedAndSandboxesStartedMeanwhileStay()
      throws Exception {
    NodeNetwork spec = network(12, 10, 1.0);
    cniNodes.put(node.name, List.of(spec), List.of(LOOPBACK));
    startAgent();
    awaitNetworkReady();

    List<RuntimeSandbox> live = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      live.add(run("keep-" + i));
    }
    List<RuntimeSandbox> lost = List.of(run("lost-0"), run("lost-1"));
    // Each loss is a SIGKILL of containerd with that sandbox's state removed, then a restart.
    for (RuntimeSandbox s : lost) {
      lostSandboxes.add(s.id());
      containerd.loseSandbox(s.id());
    }
    assertThat(containerd.crictl("pods", "-q").orThrow("crictl pods").stdout().lines())
        .containsExactlyInAnyOrderElementsOf(live.stream().map(RuntimeSandbox::id).toList());

    // Sandboxes keep starting while the lost ones wait out their grace period and are released.
    long deadline = System.nanoTime() + CONVERGE.toNanos();
    int startedAfter = 0;
    while (!disjoint(reservations(), ips(lost)) || startedAfter < 2) {
      assertThat(System.nanoTime()).as("lost reservations released in time").isLessThan(deadline);
      live.add(run("new-" + startedAfter++));
    }
    // More cleanup passes (every 5 s with this grace period) over the new sandboxes.
    agent.awaitLogged(AgentProcess.cleanupPass(network), 2);
    System.out.printf("containerd-suite sandboxes-started-during-cleanup=%d%n", startedAfter);

    assertThat(reservations()).containsExactlyInAnyOrderElementsOf(ips(live));
    assertThat(cached())
        .containsExactlyInAnyOrderElementsOf(live.stream().map(RuntimeSandbox::id).toList());
    for (RuntimeSandbox s : live) {
      assertThat(s.eth0()).as("eth0 of " + s.id()).contains(s.ip() + "/24");
    }
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getIpam().getReclaimed()).isEqualTo(2));
    assertThat(agent.log()).contains("event=stale-released");
  }

  /** A ptp network in 10.216.{subnet}.0/24 (cniVersion 1.0.0: containerd 1.6 refuses 1.1.0). */
  private NodeNetwork network(int subnet, int graceSeconds, double maxDeleteFraction) {
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\""
            + network
            + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\","
            + "\"subnet\":\"10.216."
            + subnet
            + ".0/24\",\"dataDir\":\""
            + dataDir()
            + "\"}}]}";
    return CniNodes.network(network, 10, content)
        .setIpamCleanup(
            new IpamCleanup()
                .setEnabled(true)
                .setGracePeriodSeconds(graceSeconds)
                .setMaxDeleteFraction(maxDeleteFraction));
  }

  private void startAgent() throws Exception {
    startAgent("--cri-socket=" + containerd.socket());
  }

  private void startAgent(String... args) throws Exception {
    agent =
        AgentProcess.start(
            node.name,
            node.paths.withCacheDir(ContainerdFixture.CNI_CACHE_DIR),
            cp.kubeconfigFile(),
            node.log(),
            args);
  }

  private void awaitNetworkReady() {
    await().atMost(CONVERGE).ignoreExceptions().until(() -> runtime().getNetworkReady());
    await().atMost(CONVERGE).until(() -> node.paths.binDir().resolve("loopback").toFile().exists());
  }

  private RuntimeSandbox run(Pod pod) throws Exception {
    String id =
        containerd.runPodSandbox(
            pod.getMetadata().getName(),
            pod.getMetadata().getNamespace(),
            pod.getMetadata().getUid());
    return RuntimeSandbox.inspect(containerd, id);
  }

  /** A sandbox without a Pod object: under --cri-socket the runtime alone says what is live. */
  private RuntimeSandbox run(String name) throws Exception {
    String id = containerd.runPodSandbox(name, "shop", UUID.randomUUID().toString());
    return RuntimeSandbox.inspect(containerd, id);
  }

  private Path dataDir() {
    return node.root.resolve("var/lib/cni/networks");
  }

  /** host-local's reserved addresses of the network (its files named like an IPv4 address). */
  private Set<String> reservations() {
    String[] names =
        dataDir().resolve(network).toFile().list((d, n) -> n.matches("\\d+\\.\\d+\\.\\d+\\.\\d+"));
    return names == null ? Set.of() : Set.of(names);
  }

  private Set<String> cached() {
    return new ResultCache(ContainerdFixture.CNI_CACHE_DIR)
        .list(network).stream().map(CachedAttachment::containerId).collect(Collectors.toSet());
  }

  private static Set<String> ips(List<RuntimeSandbox> sandboxes) {
    return sandboxes.stream().map(RuntimeSandbox::ip).collect(Collectors.toSet());
  }

  private static boolean disjoint(Set<String> a, Set<String> b) {
    Set<String> both = new HashSet<>(a);
    both.retainAll(b);
    return both.isEmpty();
  }

  private RuntimeNetwork runtime() {
    CniNode n = cniNodes.get(node.name);
    assertThat(n.getStatus()).isNotNull();
    assertThat(n.getStatus().getRuntime()).isNotNull();
    return n.getStatus().getRuntime();
  }

  private NodeNetworkStatus status() {
    return NodeAgentLifecycleIT.status(cniNodes.get(node.name), network).orElseThrow();
  }

  private List<Event> checkFailedEventsOn(Pod pod) {
    return cp.client().v1().events().inNamespace("default").list().getItems().stream()
        .filter(ev -> pod.getMetadata().getName().equals(ev.getInvolvedObject().getName()))
        .filter(ev -> "CniCheckFailed".equals(ev.getReason()))
        .toList();
  }
}
