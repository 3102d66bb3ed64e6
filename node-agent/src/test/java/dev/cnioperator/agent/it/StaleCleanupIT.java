package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Live and stale attachments (pods deleted, network namespaces removed without DEL): after the
 * grace period exactly the stale reservations are released; dryRun only reports; an unreadable
 * netns directory stops all cleanup; releasing too large a share trips the brake.
 */
class StaleCleanupIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private String network;
  private String content;
  private Attachments attachments;

  /** The libcni cache the network's attachments are in: the runtime's, or Multus's. */
  private Path cacheDir;

  private final List<Pod> pods = new ArrayList<>();
  private final List<NetworkNamespace> namespaces = new ArrayList<>();
  private final List<Pod> live = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("gc", ToolPaths.pluginDir());
    network = TestNames.unique("gc");
    content =
        "{\"cniVersion\":\"1.1.0\",\"name\":\""
            + network
            + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\","
            + "\"subnet\":\"10.200.72.0/24\",\"dataDir\":\""
            + node.root.resolve("var/lib/cni/networks")
            + "\"}}]}";
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    for (int i = 0; i < pods.size(); i++) {
      if (attachments != null && live.contains(pods.get(i))) {
        attachments.delQuietly(pods.get(i), namespaces.get(i));
      }
    }
    namespaces.forEach(NetworkNamespace::close);
    pods.forEach(p -> Pods.delete(cp.client(), p.getMetadata().getName()));
    cniNodes.delete(node.name);
    node.close();
  }

  private NodeNetwork spec(int graceSeconds, boolean dryRun) {
    return CniNodes.network(network, 50, content)
        .setIpamCleanup(
            new IpamCleanup()
                .setEnabled(true)
                .setGracePeriodSeconds(graceSeconds)
                .setDryRun(dryRun));
  }

  /**
   * Starts the agent on {@code spec}, then makes live + stale attachments once its plugins are in.
   */
  private void attach(NodeNetwork spec, Path netnsDir, int liveCount, int staleCount)
      throws Exception {
    attach(spec, netnsDir, node.paths.cacheDir(spec.getDirectory()), liveCount, staleCount);
  }

  /** As above, with the attachments made in {@code cache} (a caller's libcni cache). */
  private void attach(NodeNetwork spec, Path netnsDir, Path cache, int liveCount, int staleCount)
      throws Exception {
    cniNodes.put(node.name, List.of(spec));
    agent =
        AgentProcess.start(
            node.name, node.paths.withNetnsDir(netnsDir), cp.kubeconfigFile(), node.log());
    await().atMost(CONVERGE).until(() -> node.conflist(spec).toFile().exists());
    cacheDir = cache;
    attachments = new Attachments(node.paths.binDir(), cacheDir, content);
    addAttachments(liveCount, staleCount);
  }

  /** Attachments of new pods: {@code liveCount} live, then {@code staleCount} stale. */
  private void addAttachments(int liveCount, int staleCount) throws Exception {
    int first = pods.size();
    for (int i = first; i < first + liveCount + staleCount; i++) {
      Pod pod = Pods.create(cp.client(), node.name, TestNames.unique("gc" + i));
      NetworkNamespace ns = NetworkNamespace.create("gc" + i);
      pods.add(pod);
      namespaces.add(ns);
      attachments.add(pod, ns);
      if (i < first + liveCount) {
        live.add(pod);
      }
    }
    // The stale ones: pod deleted, netns removed, and no DEL — as after a node crash.
    for (int i = first + liveCount; i < pods.size(); i++) {
      Pods.delete(cp.client(), pods.get(i).getMetadata().getName());
      namespaces.get(i).close();
    }
  }

  private Set<String> cachedContainers() {
    return new ResultCache(cacheDir)
        .list(network).stream().map(CachedAttachment::containerId).collect(Collectors.toSet());
  }

  private Set<String> liveContainers() {
    return live.stream().map(Attachments::containerId).collect(Collectors.toSet());
  }

  private NodeNetworkStatus status() {
    return NodeAgentLifecycleIT.status(cniNodes.get(node.name), network).orElseThrow();
  }

  private int count(String text) throws Exception {
    String log = agent.log();
    int n = 0;
    for (int i = log.indexOf(text); i >= 0; i = log.indexOf(text, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void exactlyTheStaleReservationsAreReleasedAfterTheGracePeriodAndDryRunOnlyReports()
      throws Exception {
    attach(spec(5, true), Path.of("/var/run/netns"), 20, 20);
    assertThat(node.reservations(network)).isEqualTo(40);

    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(status().getMessage()).contains("dryRun: 20 stale reservations");
              assertThat(status().getIpam().getStale()).isEqualTo(20);
            });
    assertThat(node.reservations(network)).isEqualTo(40);
    assertThat(cachedContainers()).hasSize(40);

    cniNodes.put(node.name, List.of(spec(5, false)));
    // A DEL releases the reservation (host-local, inside the chain) before its cache entry goes
    // (after the chain, as libcni does), and DELs run side by side: wait for both to settle.
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(node.reservations(network)).isEqualTo(20);
              assertThat(cachedContainers()).isEqualTo(liveContainers());
            });
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getIpam().getReclaimed()).isEqualTo(20));
    for (int i = 0; i < 20; i++) {
      assertThat(namespaces.get(i).execResult("ip", "link", "show", "eth0").ok()).isTrue();
    }

    // Later passes find nothing more to do.
    assertThat(agent.awaitLogged(AgentProcess.cleanupPass(network), 2))
        .allSatisfy(pass -> assertThat(pass).contains(" stale=0 released=0 "));
    assertThat(node.reservations(network)).isEqualTo(20);
    assertThat(count("event=stale-released")).isEqualTo(20);
    System.out.printf(
        "stale-cleanup: live=20 stale=20 released=%d%n", count("event=stale-released"));
  }

  /**
   * Issue 29: Multus makes a secondary network's attachments with libcni on a cache of its own (its
   * cniDir, --multus-cache-dir), not the runtime's. The agent CHECKs them there and releases the
   * stale ones there, as for any network.
   */
  @Test
  void aMultusNetworksAttachmentsAreCheckedAndReleasedInMultussOwnCache() throws Exception {
    NodeNetwork spec =
        spec(0, false)
            .setDirectory(ConfigDirectory.Multus)
            .setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(5));
    attach(spec, Path.of("/var/run/netns"), 2, 2);
    assertThat(cacheDir).isEqualTo(node.paths.multusCacheDir());
    assertThat(node.conflist(spec.getFileName())).doesNotExist();
    assertThat(cachedContainers()).hasSize(4);

    awaitTwoStaleReleasedAndTwoLiveHealthy();
    assertThat(new ResultCache(node.paths.cacheDir()).list(network)).isEmpty();
  }

  /**
   * Issue 29: where Multus is the runtime's first configuration, the pod network is Multus's
   * delegate, so its attachments are in Multus's cache (the runtime's holds only the call to
   * Multus). A network of the runtime's directory is CHECKed and cleaned there too.
   */
  @Test
  void aPodNetworkBehindMultusIsCheckedAndReleasedInMultussCache() throws Exception {
    NodeNetwork spec =
        spec(0, false).setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(5));
    attach(spec, Path.of("/var/run/netns"), node.paths.multusCacheDir(), 2, 2);
    assertThat(node.conflist(spec)).exists();
    assertThat(cachedContainers()).hasSize(4);

    awaitTwoStaleReleasedAndTwoLiveHealthy();
  }

  @Test
  void nothingIsReleasedWhenTheNetnsDirectoryCannotBeRead() throws Exception {
    Path missing = node.root.resolve("no-netns-here");
    attach(spec(0, false), missing, 2, 2);
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getMessage()).contains("cannot be read"));
    // Passes go on (every second with a zero grace period), each stopping at the netns directory.
    agent.awaitLogged(
        "event=cleanup-skipped network=" + network + " reason=netns-dir-unreadable ", 2);
    assertThat(agent.logged(AgentProcess.cleanupPass(network))).isEmpty();
    assertThat(node.reservations(network)).isEqualTo(4);
    assertThat(cachedContainers()).hasSize(4);
  }

  @Test
  void passThatWouldReleaseEightyPercentTripsTheBrake() throws Exception {
    // A grace period longer than the test takes to delete the 8, so they go stale together.
    attach(spec(30, false), Path.of("/var/run/netns"), 2, 8);
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getMessage()).contains("brake: 8 of 10"));
    // Later passes (every 15 s with this grace period) brake again.
    assertThat(agent.awaitLogged(AgentProcess.cleanupPass(network), 2))
        .allSatisfy(pass -> assertThat(pass).contains(" released=0 braked=true"));
    assertThat(node.reservations(network)).isEqualTo(10);
    assertThat(cachedContainers()).hasSize(10);
    assertThat(agent.log()).contains("event=cleanup-braked");
  }

  /**
   * A CniNetwork deleted and created again under the same name is another network: the agent starts
   * its cleanup history afresh. The old network's releases count neither in the new one's {@code
   * reclaimed} nor toward its brake.
   */
  @Test
  void aNetworkCreatedAgainUnderTheSameNameStartsItsCleanupHistoryAfresh() throws Exception {
    // The first network: 2 of 4 attachments go stale, as many as its brake allows; both released.
    attach(spec(0, false).setUid(UUID.randomUUID().toString()), Path.of("/var/run/netns"), 2, 2);
    awaitReleased(2, 2);

    // Deleted and created again: the operator writes the same name with another uid. The agent
    // may see both changes as one spec change, so the uid is what tells it.
    cniNodes.put(node.name, List.of(spec(0, false).setUid(UUID.randomUUID().toString())));
    await("the new network's first cleanup pass reports nothing reclaimed yet")
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getIpam().getReclaimed()).isZero());

    // The new network: 2 of its 4 attachments go stale. Counted with the old network's 2 releases
    // (4 of 6), they would trip the brake; the new network has released nothing.
    addAttachments(0, 2);
    awaitReleased(2, 2);
    String log = agent.log();
    assertThat(log.substring(log.indexOf("event=network-replaced")))
        .doesNotContain("event=cleanup-braked");
  }

  /**
   * The agent never sends GC, even on a 1.1.0 network: GC's allow-list would DEL a pod's attachment
   * added between the agent's read of the cache and the GC (it did, here, while GC was sent), and
   * only the runtime can hold off its ADDs as the spec requires. The stale reservations go by DEL
   * once their grace period ends, and the live ones stay.
   */
  @Test
  void noGcIsSentEvenOnA110Network() throws Exception {
    assertThat(content).contains("\"cniVersion\":\"1.1.0\"");
    attach(spec(2, false), Path.of("/var/run/netns"), 2, 2);
    await().atMost(CONVERGE).until(() -> node.reservations(network) == 2);
    agent.awaitLogged(AgentProcess.cleanupPass(network), 2);
    assertThat(cachedContainers()).isEqualTo(liveContainers());
    assertThat(count("event=stale-released")).isEqualTo(2);
    assertThat(agent.logged("event=cni-gc ")).isEmpty();
  }

  /** Of two live and two stale attachments: the stale released, the live CHECKed healthy. */
  private void awaitTwoStaleReleasedAndTwoLiveHealthy() {
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(node.reservations(network)).isEqualTo(2);
              assertThat(cachedContainers()).isEqualTo(liveContainers());
            });
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(status().getIpam().getReclaimed()).isEqualTo(2);
              assertThat(status().getAttachments().getTotal()).isEqualTo(2);
              assertThat(status().getAttachments().getHealthy()).isEqualTo(2);
            });
  }

  private void awaitReleased(int reservations, int reclaimed) {
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(node.reservations(network)).isEqualTo(reservations);
              assertThat(cachedContainers()).isEqualTo(liveContainers());
              NodeNetworkStatus status = status();
              assertThat(status.getIpam().getReclaimed()).isEqualTo(reclaimed);
              assertThat(status.getIpam().getStale()).isZero();
            });
  }
}
