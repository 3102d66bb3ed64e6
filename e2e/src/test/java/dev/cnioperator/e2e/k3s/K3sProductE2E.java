package dev.cnioperator.e2e.k3s;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.InstalledPlugin;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.PodNamespaces;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The product e2e scenarios on a real cluster: k3s from Testcontainers, the chart installed with
 * helm and the k3s host-path profile, the operator and the agent running in pods from the real
 * images, and pods attached by k3s's own containerd. Optional: it runs only when {@code
 * CNI_OPERATOR_IMAGES} selects images and a Docker daemon is reachable, and is skipped otherwise,
 * in CI too (ProductE2E runs the same scenarios on the local control plane everywhere).
 *
 * <p>Not here: the reclaim of a pod gone without DEL (a real runtime always runs DEL), which
 * ProductE2E covers.
 */
@ExtendWith(K3sPathCondition.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class K3sProductE2E {
  private static final String LABEL = "cnioperator.dev/e2e";
  private static final String SELECTED = "selected";
  private static final String CONF_DIR = "/var/lib/rancher/k3s/agent/etc/cni/net.d";
  private static final String BIN_DIR = "/var/lib/rancher/k3s/data/cni";
  private static final Duration WAIT = Duration.ofMinutes(3);

  private K3sImages images;
  private K3sCluster cluster;
  private K3sProduct product;
  private ClusterNetworks networks;
  private String node;
  private final String otherNode = TestNames.unique("nodec");
  private String podNamespace;
  private final Map<String, String> bridges = new ConcurrentHashMap<>();

  @BeforeAll
  void installTheProductOnK3s() throws IOException {
    images = K3sImages.fromSetting(System.getenv(K3sImages.ENV), ToolPaths.repoRoot());
    Path work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "k3s-e2e-");
    cluster = K3sCluster.start(images, work);
    networks = new ClusterNetworks(cluster.client(), cluster::kubectlWithInput);
    assertThat(cluster.containerdCniBinDir())
        .as("the k3s image's containerd must read plugins from the chart's k3s bin dir")
        .contains(BIN_DIR);
    product = K3sProduct.install(cluster, images, work);
    node = cluster.nodeName();
    // A Node with no kubelet behind it: the operator gives it a CniNode that no network selects.
    cluster
        .client()
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(otherNode)
                .withLabels(Map.of("kubernetes.io/hostname", otherNode))
                .endMetadata()
                .build())
        .create();
    podNamespace = PodNamespaces.create(cluster.client(), "pods");
  }

  @AfterAll
  void stopK3s() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void helmInstallRunsTheOperatorAndTheAgentFromTheImagesUnderTest() {
    KubernetesClient client = cluster.client();
    Deployment operator =
        client
            .apps()
            .deployments()
            .inNamespace(K3sProduct.NAMESPACE)
            .withName("cni-operator-operator")
            .get();
    assertThat(operator.getStatus().getReadyReplicas()).isEqualTo(operator.getSpec().getReplicas());
    assertThat(images(operator.getSpec().getTemplate().getSpec().getContainers()))
        .containsExactly(images.operator().toString());

    DaemonSet agents =
        client
            .apps()
            .daemonSets()
            .inNamespace(K3sProduct.NAMESPACE)
            .withName("cni-operator-agent")
            .get();
    assertThat(images(agents.getSpec().getTemplate().getSpec().getContainers()))
        .containsExactly(images.agent().toString());
    Pod agent = product.agentPod(node);
    assertThat(agent.getStatus().getContainerStatuses())
        .allSatisfy(s -> assertThat(s.getReady()).as("agent container ready").isTrue());

    CommandResult found =
        cluster.kubectlWithInput(product.manifest(), "get", "-f", "-", "-o", "name");
    assertThat(found.ok()).as(found.stderr()).isTrue();
  }

  @Test
  @Order(2)
  void aNetworkSelectingTheLabelledNodeLandsOnItWithTheBundledPluginsAndIsReady() {
    cluster.kubectl("label", "node", node, LABEL + "=" + SELECTED, "--overwrite").orThrow("label");
    // k3s ships the reference plugins too: without its tuning, the agent must install its own.
    cluster.removeFile(BIN_DIR + "/tuning");
    String name = TestNames.unique("sel");
    networks.apply(network(name, 50, "matchLabels: {" + LABEL + ": " + SELECTED + "}", 60));
    networks.waitReady(name);

    CniNetwork net = networks.network(name);
    String file = net.getStatus().getRendered().getFileName();
    assertThat(cluster.readFile(CONF_DIR + "/" + file))
        .contains(net.getStatus().getRendered().getContent());
    assertThat(net.getStatus().getNodes().getSelected()).isEqualTo(1);
    assertThat(networks.networksOf(otherNode)).doesNotContain(name);

    // Installed from the plugins bundled in the agent image, and owned by the agent.
    assertThat(cluster.readFile(BIN_DIR + "/tuning")).isPresent();
    assertThat(plugins(node))
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("tuning");
              assertThat(p.getOwner()).isEqualTo("agent");
            });
    networks.delete(name);
    assertThat(cluster.readFile(CONF_DIR + "/" + file)).isEmpty();
  }

  @Test
  @Order(3)
  void theAgentsPodTokenWritesOnlyItsOwnNodesStatusAndNoNetwork() {
    await().atMost(WAIT).until(() -> networks.cniNode(otherNode).isPresent());
    try (KubernetesClient asAgent = cluster.clientForToken(product.agentToken(node))) {
      CniNode other = asAgent.resources(CniNode.class).withName(otherNode).get();
      assertThat(other).as("the agent may read CniNodes").isNotNull();
      other.setStatus(new CniNodeStatus());
      KubernetesClientException denied =
          assertThrows(
              KubernetesClientException.class,
              () -> asAgent.resources(CniNode.class).resource(other).updateStatus());
      assertThat(denied.getCode()).isIn(403, 422);

      CniNetwork rogue = new CniNetwork();
      rogue.getMetadata().setName(TestNames.unique("rogue"));
      KubernetesClientException forbidden =
          assertThrows(
              KubernetesClientException.class,
              () -> asAgent.resources(CniNetwork.class).resource(rogue).create());
      assertThat(forbidden.getCode()).isEqualTo(403);

      CniNode own = asAgent.resources(CniNode.class).withName(node).get();
      asAgent.resources(CniNode.class).resource(own).updateStatus();
    }
  }

  @Test
  @Order(4)
  void checkCountsThePodsTheRuntimeAttachedAndABrokenOneDegradesTheNetwork() {
    String name = TestNames.unique("chk");
    int subnet = subnet(name);
    // Priority 0 sorts before k3s's 10-flannel.conflist: the node's runtime attaches new pods
    // through this network, and the agent CHECKs the attachments from the runtime's cache.
    networks.apply(network(name, 0, "matchLabels: {kubernetes.io/hostname: " + node + "}", 5));
    networks.waitReady(name);
    try (K3sPods pods = new K3sPods(cluster, podNamespace)) {
      Pod p1 = pods.run(name + "-p1");
      Pod p2 = pods.run(name + "-p2");
      assertThat(List.of(p1.getStatus().getPodIP(), p2.getStatus().getPodIP()))
          .as("the runtime attached the pods through the new default network")
          .allMatch(ip -> ip.startsWith("10.200." + subnet + "."));

      eventually(
          () -> {
            NodeNetworkStatus s = networks.nodeStatus(node, name).orElseThrow();
            assertThat(s.getAttachments().getTotal()).isEqualTo(2);
            assertThat(s.getAttachments().getHealthy()).isEqualTo(2);
          });

      pods.releaseReservationBehindTheRuntime(p1, name);

      eventually(
          () -> {
            Condition degraded = networks.condition(name, "Degraded").orElseThrow();
            assertThat(degraded.getStatus()).isEqualTo("True");
            assertThat(degraded.getMessage()).contains(node).contains(p1.getMetadata().getName());
          });
      eventually(
          () ->
              assertThat(cluster.client().v1().events().inNamespace(podNamespace).list().getItems())
                  .anyMatch(
                      e ->
                          p1.getMetadata().getName().equals(e.getInvolvedObject().getName())
                              && "Pod".equals(e.getInvolvedObject().getKind())));
    }
    networks.delete(name);
  }

  @Test
  @Order(5)
  void editsReachTheNodeAndAnInvalidEditKeepsTheLastValidRevision() {
    String name = TestNames.unique("edit");
    String selector = "matchLabels: {" + LABEL + ": " + SELECTED + "}";
    String path = CONF_DIR + "/50-" + name + ".conflist";
    networks.apply(network(name, 50, selector, 60));
    networks.waitReady(name);

    networks.apply(network(name, 50, selector, 60).replace("mtu: 1400", "mtu: 1300"));
    eventually(() -> assertThat(cluster.readFile(path).orElseThrow()).contains("1300"));
    networks.waitReady(name);
    String lastValid = cluster.readFile(path).orElseThrow();

    networks.apply(
        network(name, 50, selector, 60).replace("mtu: 1400", "dns: {nameservers: [ns1.example]}"));
    eventually(
        () -> {
          Condition accepted = networks.condition(name, "Accepted").orElseThrow();
          assertThat(accepted.getStatus()).isEqualTo("False");
          assertThat(accepted.getMessage()).contains("nameservers");
        });
    assertThat(cluster.readFile(path)).contains(lastValid);

    CommandResult refused =
        networks.tryApply(network(name, 50, selector, 60).replace("priority: 50", "priority: 150"));
    assertThat(refused.ok()).isFalse();
    assertThat(refused.stderr()).contains("spec.priority");
    networks.delete(name);
  }

  @Test
  @Order(6)
  void deletingANetworkRemovesItsFileAndLeavesForeignFilesAlone() {
    String foreign = CONF_DIR + "/99-foreign.conf";
    cluster.writeFile(foreign, "not mine");
    try {
      String name = TestNames.unique("del");
      String path = CONF_DIR + "/50-" + name + ".conflist";
      networks.apply(network(name, 50, "matchLabels: {" + LABEL + ": " + SELECTED + "}", 60));
      networks.waitReady(name);
      assertThat(cluster.readFile(path)).isPresent();

      networks.delete(name);

      assertThat(cluster.readFile(path)).isEmpty();
      assertThat(cluster.readFile(foreign)).contains("not mine");
      assertThat(cluster.readFile(CONF_DIR + "/10-flannel.conflist"))
          .as("k3s's own network")
          .isPresent();
    } finally {
      cluster.removeFile(foreign);
    }
  }

  @Test
  @Order(100)
  void helmUninstallLeavesNoObjectOfTheChartBehind() {
    String manifest = product.manifest();
    product.uninstall().orThrow("helm uninstall");

    CommandResult left =
        cluster.kubectlWithInput(manifest, "get", "-f", "-", "-o", "name", "--ignore-not-found");
    assertThat(left.stdout().strip()).isEmpty();
  }

  /** The network's bridge keeps its name across edits. */
  private String network(String name, int priority, String selector, int checkSeconds) {
    String bridge = bridges.computeIfAbsent(name, n -> TestNames.unique("br"));
    return ClusterNetworks.bridgeNetwork(
        name, priority, selector, bridge, subnet(name), checkSeconds);
  }

  /** Polls until the assertion holds, through a status not written yet. */
  private static void eventually(ThrowingRunnable assertion) {
    await().atMost(WAIT).ignoreExceptions().untilAsserted(assertion);
  }

  private static int subnet(String name) {
    return 100 + Math.floorMod(name.hashCode(), 100);
  }

  private List<InstalledPlugin> plugins(String nodeName) {
    return networks
        .cniNode(nodeName)
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getPlugins)
        .orElse(List.of());
  }

  private static List<String> images(List<Container> containers) {
    return containers.stream().map(Container::getImage).toList();
  }
}
