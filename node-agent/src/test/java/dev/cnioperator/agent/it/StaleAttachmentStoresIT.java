package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.agent.network.HostLocalReservations;
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
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * host-local's reservations where host-local keeps them, with the real ptp and host-local plugins
 * in real network namespaces and the agent as a process: its own default store whatever the agent's
 * cache dir, the old store of a dataDir an edit changed, and a store that cannot be read.
 */
class StaleAttachmentStoresIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private String network;
  private final List<Attached> attached = new ArrayList<>();

  /** Directories of host-local's default store this test made (it may not find them there). */
  private final List<Path> madeDefaultDirs = new ArrayList<>();

  /** One attachment made as a runtime would, under the revision it was added with. */
  private record Attached(Attachments revision, Pod pod, NetworkNamespace ns) {
    String containerId() {
      return Attachments.containerId(pod);
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("hls", ToolPaths.pluginDir());
    network = TestNames.unique("hls");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    for (Attached a : attached) {
      a.revision().delQuietly(a.pod(), a.ns());
      a.ns().close();
      Pods.delete(cp.client(), a.pod().getMetadata().getName());
    }
    cniNodes.delete(node.name);
    node.close();
    // host-local's own default store lies outside the node's sandbox: remove this network's
    // directory, then the parents only if this test made them and nothing else is in them.
    Path store = HostLocalReservations.DEFAULT_DATA_DIR.resolve(network);
    if (Files.isDirectory(store)) {
      try (Stream<Path> files = Files.walk(store)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
    for (Path dir : madeDefaultDirs) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException inUse) {
        // another test's network is there now: not ours to remove
      }
    }
  }

  /** A ptp + host-local conflist in 10.200.{@code subnet}.0/24; {@code dataDir} null for none. */
  private String conflist(Path dataDir, int subnet) {
    return "{\"cniVersion\":\"1.1.0\",\"name\":\""
        + network
        + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\","
        + "\"subnet\":\"10.200."
        + subnet
        + ".0/24\""
        + (dataDir == null ? "" : ",\"dataDir\":\"" + dataDir + "\"")
        + "}}]}";
  }

  /** The network with a 5 s grace period; the brake is off, these tests are not about it. */
  private NodeNetwork spec(String content, boolean dryRun) {
    return CniNodes.network(network, 50, content)
        .setIpamCleanup(
            new IpamCleanup()
                .setEnabled(true)
                .setGracePeriodSeconds(5)
                .setDryRun(dryRun)
                .setMaxDeleteFraction(1.0));
  }

  /** Puts {@code spec} in the CniNode, starting the agent first time, and waits for its file. */
  private void apply(NodeNetwork spec) throws Exception {
    cniNodes.put(node.name, List.of(spec));
    if (agent == null) {
      agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());
    }
    Path file = node.conflist(spec.getFileName());
    await()
        .atMost(CONVERGE)
        .until(() -> Files.exists(file) && Files.readString(file).equals(spec.getContent()));
  }

  /**
   * ADDs a pod's attachment under {@code content}; a stale one then loses its pod and namespace
   * with no DEL (as after a node crash), an orphan its cache entry too (a runtime killed between
   * host-local's reservation and libcni's cache write).
   */
  private Attached attach(String content, String kind) {
    Attachments revision = new Attachments(node.paths.binDir(), node.paths.cacheDir(), content);
    Pod pod = Pods.create(cp.client(), node.name, TestNames.unique("hls-" + kind));
    NetworkNamespace ns = NetworkNamespace.create("hls");
    Attached a = new Attached(revision, pod, ns);
    attached.add(a);
    revision.add(pod, ns);
    if (!kind.equals("live")) {
      Pods.delete(cp.client(), pod.getMetadata().getName());
      ns.close();
    }
    if (kind.equals("orphan")) {
      assertThat(new ResultCache(node.paths.cacheDir()).remove(network, a.containerId(), "eth0"))
          .isTrue();
    }
    return a;
  }

  /** The containers host-local holds an address for in {@code dataDir}'s store of the network. */
  private Set<String> reservedBy(Path dataDir) {
    return new TreeSet<>(
        dev.cnioperator.testkit.HostLocalStore.reservedBy(dataDir.resolve(network)).values());
  }

  private Set<String> cachedContainers() {
    return new ResultCache(node.paths.cacheDir())
        .list(network).stream().map(CachedAttachment::containerId).collect(Collectors.toSet());
  }

  private static Set<String> ids(Attached... a) {
    return Stream.of(a).map(Attached::containerId).collect(Collectors.toCollection(TreeSet::new));
  }

  private NodeNetworkStatus status() {
    return NodeAgentLifecycleIT.status(cniNodes.get(node.name), network).orElseThrow();
  }

  /** The directories of host-local's default store that do not exist yet, deepest last. */
  private void rememberMissingDefaultDirs() {
    for (Path dir = HostLocalReservations.DEFAULT_DATA_DIR; dir != null; dir = dir.getParent()) {
      if (!Files.exists(dir)) {
        madeDefaultDirs.add(dir);
      }
    }
  }

  @Test
  void withAnotherCacheDirStaleReservationsAreFoundAndReleasedInHostLocalsOwnDefaultStore()
      throws Exception {
    assertThat(node.paths.cacheDir()).isNotEqualTo(ResultCache.DEFAULT_DIR);
    rememberMissingDefaultDirs();
    String content = conflist(null, 64);
    apply(spec(content, false));
    Attached live1 = attach(content, "live");
    Attached live2 = attach(content, "live");
    Attached stale = attach(content, "stale");
    Attached orphan = attach(content, "orphan");
    // host-local wrote them in its own default, not under the agent's cache dir.
    assertThat(reservedBy(HostLocalReservations.DEFAULT_DATA_DIR))
        .isEqualTo(ids(live1, live2, stale, orphan));
    assertThat(node.paths.cacheDir().resolve("networks")).doesNotExist();

    // The orphan has no cache entry: only a read of the right store finds it.
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(reservedBy(HostLocalReservations.DEFAULT_DATA_DIR))
                  .isEqualTo(ids(live1, live2));
              assertThat(cachedContainers()).isEqualTo(ids(live1, live2));
              assertThat(status().getIpam().getReservations()).isEqualTo(2);
              assertThat(status().getIpam().getReclaimed()).isEqualTo(2);
            });
    assertThat(live1.ns().execResult("ip", "link", "show", "eth0").ok()).isTrue();
    assertThat(live2.ns().execResult("ip", "link", "show", "eth0").ok()).isTrue();
    assertThat(agent.log()).contains("container=" + orphan.containerId() + " ifName=eth0 verb=DEL");
  }

  @Test
  void aDataDirChangedBetweenRevisionsHasItsOldStoreCleanedAndTheLiveReservationThereKept()
      throws Exception {
    Path oldDir = node.root.resolve("ipam-old");
    Path newDir = node.root.resolve("ipam-new");
    String rev1 = conflist(oldDir, 65);
    String rev2 = conflist(newDir, 66);
    // Revision 1 only reports, so nothing is released before the dataDir changes.
    apply(spec(rev1, true));
    Attached oldLive = attach(rev1, "live");
    Attached oldStale = attach(rev1, "stale");
    Attached oldOrphan = attach(rev1, "orphan");
    awaitMessage("dryRun: 2 stale reservations");

    apply(spec(rev2, false));
    Attached newLive = attach(rev2, "live");

    awaitOnlyLive(oldDir, oldLive, newDir, newLive);
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(status().getIpam().getReservations()).isEqualTo(2);
              assertThat(status().getIpam().getReclaimed()).isEqualTo(2);
            });
    assertThat(oldLive.ns().execResult("ip", "link", "show", "eth0").ok()).isTrue();
    assertThat(newLive.ns().execResult("ip", "link", "show", "eth0").ok()).isTrue();
    assertThat(agent.log())
        .contains("container=" + oldStale.containerId() + " ifName=eth0 verb=DEL")
        .contains("container=" + oldOrphan.containerId() + " ifName=eth0 verb=DEL");
  }

  @Test
  void anOldStoreThatCannotBeReadIsNamedInTheStatusAndNothingStoredThereIsReleased()
      throws Exception {
    Path oldDir = node.root.resolve("ipam-old");
    Path aside = node.root.resolve("ipam-old-unmounted");
    Path newDir = node.root.resolve("ipam-new");
    String rev1 = conflist(oldDir, 67);
    String rev2 = conflist(newDir, 68);
    apply(noCheck(spec(rev1, true)));
    Attached oldLive = attach(rev1, "live");
    Attached oldStale = attach(rev1, "stale");
    awaitMessage("dryRun: 1 stale reservations");

    // The old dataDir gone from where the agent looks, as a host path not mounted into its
    // container: a DEL through the cached config would "succeed" on an empty store made anew and
    // drop the cache entry, leaving the real reservation behind for good.
    Files.move(oldDir, aside);
    apply(noCheck(spec(rev2, false)));
    Attached newLive = attach(rev2, "live");
    awaitMessage(
        "host-local store "
            + oldDir.resolve(network)
            + " cannot be read (dataDir "
            + oldDir
            + " does not exist here",
        "nothing stored there is released");
    // More cleanup passes, each past the grace period, none releasing anything.
    assertThat(agent.awaitLogged(AgentProcess.cleanupPass(network), 2))
        .allSatisfy(pass -> assertThat(pass).contains(" released=0 "));
    assertThat(cachedContainers()).isEqualTo(ids(oldLive, oldStale, newLive));
    assertThat(oldDir).doesNotExist();
    assertThat(agent.log()).contains("event=stale-release-held").doesNotContain("verb=DEL");
    assertThat(status().getIpam().getReservations()).isNull();

    // Back where the agent looks: the stale one is released from it, the live one kept.
    Files.move(aside, oldDir);
    awaitOnlyLive(oldDir, oldLive, newDir, newLive);
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getMessage()).isNull());
    assertThat(oldLive.ns().execResult("ip", "link", "show", "eth0").ok()).isTrue();
  }

  /**
   * Without CHECK: host-local's CHECK makes its store's directory anew (MkdirAll), which a store
   * not mounted into the agent's container (whose root is read-only) never gets.
   */
  private void awaitMessage(String... parts) {
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getMessage()).contains(parts));
  }

  /** Waits until each store, and libcni's cache, hold exactly the live attachment of each. */
  private void awaitOnlyLive(Path oldDir, Attached oldLive, Path newDir, Attached newLive) {
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(reservedBy(oldDir)).isEqualTo(ids(oldLive));
              assertThat(reservedBy(newDir)).isEqualTo(ids(newLive));
              assertThat(cachedContainers()).isEqualTo(ids(oldLive, newLive));
            });
  }

  private static NodeNetwork noCheck(NodeNetwork spec) {
    return spec.setCheck(new NetworkCheck().setEnabled(false));
  }
}
