package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The upgrade every user does twice a year, under the product: a two-node cluster on the release
 * before the pinned one ({@code UPGRADE_FROM}, e2e/bin/matrix) runs the chart, a pod network with
 * its staged rollout and four pods; its control plane is upgraded to the pinned release (API
 * server, then controller manager and scheduler), then each node's kubelet, one node at a time.
 * Throughout, the pod network's conflist is never rewritten nor missing on any node, no pod loses
 * its sandbox or address, and the CniNetwork is Ready whenever the API server answers. After it,
 * the agents CHECK every pod healthy, an edit of the network rolls out node by node on the new
 * release, and new pods start on both nodes.
 *
 * <p>Tagged {@value #TAG}: the README's test command leaves it out (it needs a second release
 * built), e2e/bin/matrix runs it.
 */
@Tag(KubernetesUpgradeE2E.TAG)
class KubernetesUpgradeE2E {
  static final String TAG = "kubernetes-upgrade";

  private static final Duration ROLLOUT = Duration.ofMinutes(4);
  private static final String BRIDGE = "cbupg0";
  private static final String NETWORK_NAME = "upg";
  private static final String NETWORK_FILE = "10-" + NETWORK_NAME + ".conflist";
  private static final String NETWORK = ClusterNetworks.podNetwork(NETWORK_NAME, BRIDGE);

  private static KubeletCluster cluster;
  private static LocalControlPlane cp;
  private static ChartRelease release;
  private static String apps;

  @BeforeAll
  static void startOnThePreviousRelease() {
    Path from = ToolPaths.upgradeFromBinDir();
    cluster = KubeletCluster.startOn(from, 2);
    cp = cluster.controlPlane();
    PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
    release = ChartRelease.install(cp, product, "upg", ChartRelease.onNodes(cluster));
    cp.kubectlWithInput(NETWORK, "apply", "-f", "-").orThrow("kubectl apply of the pod network");
    release.awaitProductRollout(cluster, ROLLOUT);
    apps = NodePods.startPausePods(cp.client(), 4);
  }

  @AfterAll
  static void stopCluster() {
    Teardown.closeAll(
        () -> {
          if (cluster != null) {
            PodLogs.keep(cluster, Path.of("target/it-logs/kubernetes-upgrade").toAbsolutePath());
          }
        },
        release,
        cluster);
  }

  @Test
  void controlPlaneThenKubeletsNodeByNodeWithoutAConflistRewrittenOrAPodLosingItsAddress()
      throws InterruptedException {
    String from = ToolPaths.upgradeFromVersion();
    String to = ToolPaths.kubernetesVersion();
    KubernetesClient client = cp.client();
    assertThat(cp.serverVersion()).isEqualTo("v" + from);
    ClusterNetworks networks = ClusterNetworks.on(cp);
    networks.waitReady(NETWORK_NAME);
    Map<String, FileIdentity> filesBefore = new LinkedHashMap<>();
    Map<String, PodSandbox> podsBefore = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      assertThat(kubeletVersion(client, node)).isEqualTo("v" + from);
      filesBefore.put(node.name(), FileIdentity.of(node.cniConfDir().resolve(NETWORK_FILE)));
      for (Pod pod : NodePods.runningPods(client, apps, node)) {
        podsBefore.put(pod.getMetadata().getUid(), PodSandbox.of(node, pod));
      }
    }
    assertThat(podsBefore).hasSize(4);

    ConflistWatch watch = ConflistWatch.start(cluster.nodes(), NETWORK_FILE);
    ReadySamples ready = ReadySamples.start(cp, NETWORK_NAME);
    long t0 = System.nanoTime();
    try {
      cp.upgradeTo(ToolPaths.kubernetesBinDir());
      assertThat(cp.serverVersion()).isEqualTo("v" + to);
      long controlPlaneMs = (System.nanoTime() - t0) / 1_000_000;
      List<String> nodeMs = new ArrayList<>();
      for (KubeletNode node : cluster.nodes()) {
        long n0 = System.nanoTime();
        assertThat(node.upgradeKubelet(ToolPaths.kubelet())).isEqualTo("v" + to);
        nodeMs.add(node.name() + "=" + (System.nanoTime() - n0) / 1_000_000);
        assertPodsKeptTheirSandboxes(client, node, podsBefore);
      }
      System.out.printf(
          "event=kubernetes-upgrade from=v%s to=v%s control_plane_ms=%d kubelets_ms=%s%n",
          from, to, controlPlaneMs, nodeMs);
      // Six CHECK intervals (5 s each) and the agents' status renewals on the new release.
      ready.awaitSamples(30);
      networks.waitReady(NETWORK_NAME);
      awaitAttachmentsHealthyAsRunningPods(client);
    } finally {
      watch.stop();
      ready.stop();
    }
    System.out.printf(
        "event=kubernetes-upgrade-samples ready=%d unanswered=%d notReady=%s%n",
        ready.readyCount(), ready.unanswered(), ready.notReady());
    assertThat(watch.misses())
        .as("moments a node had no %s during the upgrade", NETWORK_FILE)
        .isEmpty();
    assertThat(ready.notReady())
        .as("samples of the CniNetwork's Ready condition that were not True during the upgrade")
        .isEmpty();
    assertThat(ready.unanswered())
        .as("samples the API server did not answer while it restarted")
        .isPositive();
    assertThat(ready.readyCount()).as("samples that found it Ready").isGreaterThanOrEqualTo(30);
    for (KubeletNode node : cluster.nodes()) {
      assertThat(kubeletVersion(client, node)).isEqualTo("v" + to);
      assertThat(FileIdentity.of(node.cniConfDir().resolve(NETWORK_FILE)))
          .as("%s on %s, written by the agent before the upgrade, untouched", NETWORK_FILE, node)
          .isEqualTo(filesBefore.get(node.name()));
      List<Pod> onNode = NodePods.runningPods(client, apps, node);
      assertThat(NodePods.tcpAnswer(node, onNode.get(0), onNode.get(1)))
          .as("TCP between two pods of %s after the upgrade", node.name())
          .isEqualTo("pong");
    }

    // The staged rollout on the new release: an edit goes out node by node and proves itself.
    String edited =
        ClusterNetworks.podNetwork(
            NETWORK_NAME, BRIDGE, "ipamCleanup: {gracePeriodSeconds: 30}", "mtu: 1400");
    cp.kubectlWithInput(edited, "apply", "-f", "-").orThrow("kubectl apply of the edit");
    await("the edit is written on every node")
        .atMost(ROLLOUT)
        .untilAsserted(
            () -> {
              for (KubeletNode node : cluster.nodes()) {
                assertThat(new String(NodePods.confFile(node, NETWORK_FILE)))
                    .as("%s on %s", NETWORK_FILE, node.name())
                    .containsPattern("\"mtu\"\\s*:\\s*1400");
              }
            });
    networks.waitRolledOut(NETWORK_NAME);
    networks.waitReady(NETWORK_NAME);
    client.apps().deployments().inNamespace(apps).withName("pause").scale(6);
    List<Pod> six = NodePods.awaitRunningPods(client, apps, 6);
    assertThat(six.stream().map(p -> p.getSpec().getNodeName()).distinct())
        .as("nodes of the six pods")
        .hasSize(2);
  }

  private static void assertPodsKeptTheirSandboxes(
      KubernetesClient client, KubeletNode node, Map<String, PodSandbox> before) {
    List<Pod> now = NodePods.runningPods(client, apps, node);
    Map<String, PodSandbox> expected =
        before.entrySet().stream()
            .filter(e -> e.getValue().node().equals(node.name()))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(now.stream().collect(Collectors.toMap(p -> p.getMetadata().getUid(), p -> p)))
        .as("the pods of %s after its kubelet's upgrade", node.name())
        .containsOnlyKeys(expected.keySet());
    for (Pod pod : now) {
      assertThat(PodSandbox.of(node, pod))
          .as("pod %s on %s", pod.getMetadata().getName(), node.name())
          .isEqualTo(expected.get(pod.getMetadata().getUid()));
    }
  }

  /**
   * Waits until every node's CniNode counts as many healthy attachments of the pod network as the
   * node runs pods.
   */
  private static void awaitAttachmentsHealthyAsRunningPods(KubernetesClient client) {
    await("healthy attachments as many as running pods on every node")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                NodePods.assertAttachmentsHealthyAsRunningPods(
                    client, cluster.nodes(), apps, NETWORK_NAME));
  }

  private static String kubeletVersion(KubernetesClient client, KubeletNode node) {
    return client.nodes().withName(node.name()).get().getStatus().getNodeInfo().getKubeletVersion();
  }
}
