package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With {@code --cri-socket} the runtime's sandboxes are the source of truth: attachments of the
 * sandboxes containerd lists stay (though the API server has no such pods), and the attachment of a
 * sandbox containerd lost without a DEL is released after the grace period.
 */
class CriSourceOfTruthIT {
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private ContainerdFixture containerd;
  private AgentProcess agent;
  private String network;

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("cri", ToolPaths.pluginDir());
    network = TestNames.unique("cri");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (containerd != null) {
      containerd.close();
    }
    cniNodes.delete(node.name);
    node.close();
  }

  @Test
  void sandboxesTheRuntimeListsStayAndALostOneIsReleased() throws Exception {
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\""
            + network
            + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\","
            + "\"subnet\":\"10.200.63.0/24\",\"dataDir\":\""
            + node.root.resolve("var/lib/cni/networks")
            + "\"}}]}";
    NodeNetwork spec =
        CniNodes.network(network, 10, content)
            .setIpamCleanup(new IpamCleanup().setEnabled(true).setGracePeriodSeconds(0));
    // containerd's CRI plugin also runs loopback for every sandbox.
    NodePlugin loopback = new NodePlugin().setName("loopback").setSource("bundled");
    cniNodes.put(node.name, List.of(spec), List.of(loopback));
    containerd = ContainerdFixture.start(node.root, node.paths.confDir(), node.paths.binDir());
    agent =
        AgentProcess.start(
            node.name,
            node.paths.withCacheDir(ContainerdFixture.CNI_CACHE_DIR),
            cp.kubeconfigFile(),
            node.log(),
            "--cri-socket=" + containerd.socket());
    await().atMost(CONVERGE).until(() -> node.conflist(spec.getFileName()).toFile().exists());
    await().atMost(CONVERGE).until(() -> node.paths.binDir().resolve("loopback").toFile().exists());

    String kept = containerd.runPodSandbox("web-1", "shop", UUID.randomUUID().toString());
    String lost = containerd.runPodSandbox("web-2", "shop", UUID.randomUUID().toString());
    assertThat(cached()).containsExactlyInAnyOrder(kept, lost);
    assertThat(node.reservations(network)).isEqualTo(2);

    containerd.loseSandbox(lost);
    // The DEL releases the reservation (host-local, inside the chain) before the cache entry goes
    // (after the chain, as libcni does): wait for both.
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              assertThat(node.reservations(network)).isEqualTo(1);
              assertThat(cached()).containsExactly(kept);
            });
    // More passes (every second with a zero grace period): the sandbox the runtime lists is never
    // released, pod or no pod, nor even found stale.
    assertThat(agent.awaitLogged(AgentProcess.cleanupPass(network), 3))
        .allSatisfy(pass -> assertThat(pass).contains(" stale=0 released=0 "));
    assertThat(cached()).containsExactly(kept);
    assertThat(node.reservations(network)).isEqualTo(1);
    assertThat(agent.log()).contains("event=source-of-truth kind=cri");
  }

  private Set<String> cached() {
    return new ResultCache(ContainerdFixture.CNI_CACHE_DIR)
        .list(network).stream().map(CachedAttachment::containerId).collect(Collectors.toSet());
  }
}
