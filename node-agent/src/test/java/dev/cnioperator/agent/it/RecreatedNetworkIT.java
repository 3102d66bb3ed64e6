package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A CniNetwork deleted and created again under the same name is another network: the agent starts
 * its cleanup history afresh. The old network's releases neither count in the new one's {@code
 * reclaimed} nor toward its brake.
 */
class RecreatedNetworkIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private String network;
  private String content;
  private Attachments attachments;
  private final List<Pod> pods = new ArrayList<>();
  private final List<NetworkNamespace> namespaces = new ArrayList<>();
  private final List<Pod> live = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("re", ToolPaths.pluginDir());
    network = TestNames.unique("re");
    content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\""
            + network
            + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\","
            + "\"subnet\":\"10.200.64.0/24\",\"dataDir\":\""
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

  /** The network with cleanup at once (grace 0) and the default brake (half the attachments). */
  private NodeNetwork spec(String uid) {
    return CniNodes.network(network, 50, content)
        .withUid(uid)
        .withIpamCleanup(new IpamCleanup().withEnabled(true).withGracePeriodSeconds(0));
  }

  @Test
  void aNetworkCreatedAgainUnderTheSameNameStartsItsCleanupHistoryAfresh() throws Exception {
    cniNodes.put(node.name, List.of(spec(UUID.randomUUID().toString())));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());
    await().atMost(CONVERGE).until(() -> node.conflist(spec("").getFileName()).toFile().exists());
    attachments = new Attachments(node.paths.binDir(), node.paths.cacheDir(), content);

    // The first network: 2 of 4 attachments go stale, as many as its brake allows; both released.
    attach(2, true);
    attach(2, false);
    awaitReclaimed(2, 2);

    // Deleted and created again: the operator writes the same name with another uid. The agent
    // may see both changes as one spec change, so the uid is what tells it.
    cniNodes.put(node.name, List.of(spec(UUID.randomUUID().toString())));
    await("the new network's first cleanup pass reports nothing reclaimed yet")
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(status().getIpam().getReclaimed()).isZero());

    // The new network: 2 of its 4 attachments go stale. Counted with the old network's 2 releases
    // (4 of 6), they would trip the brake; the new network has released nothing.
    attach(2, false);
    awaitReclaimed(2, 2);
    assertThat(agent.log()).doesNotContain("event=cleanup-braked");
  }

  /** Attachments of {@code count} new pods; pods and netns then gone without DEL unless live. */
  private void attach(int count, boolean stayLive) throws Exception {
    for (int i = 0; i < count; i++) {
      Pod pod = Pods.create(cp.client(), node.name, TestNames.unique("re"));
      NetworkNamespace ns = NetworkNamespace.create("re" + pods.size());
      pods.add(pod);
      namespaces.add(ns);
      attachments.add(pod, ns);
      if (stayLive) {
        live.add(pod);
      } else {
        Pods.delete(cp.client(), pod.getMetadata().getName());
        ns.close();
      }
    }
  }

  private void awaitReclaimed(int reservations, int reclaimed) {
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(node.reservations(network)).isEqualTo(reservations);
              NodeNetworkStatus status = status();
              assertThat(status.getIpam().getReclaimed()).isEqualTo(reclaimed);
              assertThat(status.getIpam().getStale()).isZero();
            });
  }

  private NodeNetworkStatus status() {
    return NodeAgentLifecycleIT.status(cniNodes.get(node.name), network).orElseThrow();
  }
}
