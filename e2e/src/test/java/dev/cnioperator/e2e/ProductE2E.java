package dev.cnioperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.PodAttachments.PodAttachment;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.HostLocalStore;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The whole product, as a cluster operator meets it: the chart installed with helm on a real API
 * server, the operator and two node agents as processes holding the chart's ServiceAccount tokens,
 * three Nodes of which two are labelled, networks applied with kubectl, real attachments in real
 * network namespaces, and helm uninstall at the end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProductE2E {
  private static final String LABEL = "cnioperator.dev/e2e";
  private static final String SELECTED = "selected";
  private static final Duration WAIT = Duration.ofSeconds(120);

  private LocalControlPlane cp;
  private LocalProduct product;
  private ClusterNetworks networks;
  private Path work;
  private SandboxNode nodeA;
  private SandboxNode nodeB;
  private final String nodeC = TestNames.unique("nodec");
  private String podNamespace;

  /** Each network's bridge on the host: stable across edits, removed at the end. */
  private final Map<String, String> bridges = new java.util.concurrent.ConcurrentHashMap<>();

  @BeforeAll
  void installTheProduct() throws IOException {
    Prerequisites.requireRoot();
    cp = LocalControlPlane.shared();
    networks = new ClusterNetworks(cp.client(), cp::kubectlWithInput);
    work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "e2e-");
    product = LocalProduct.install(cp, work);
    String a = TestNames.unique("nodea");
    String b = TestNames.unique("nodeb");
    product.createNode(a, Map.of(LABEL, SELECTED, "kubernetes.io/hostname", a));
    product.createNode(b, Map.of(LABEL, SELECTED, "kubernetes.io/hostname", b));
    product.createNode(nodeC, Map.of("kubernetes.io/hostname", nodeC));
    product.startOperator("e2e-operator");
    // Node A reads libcni's own cache, so that cnitool's attachments are among its attachments.
    nodeA = product.startAgent(a, Path.of("/var/lib/cni"));
    nodeB = product.startAgent(b);
    podNamespace = PodNamespaces.create(cp.client(), "pods");
  }

  @AfterAll
  void stopTheProduct() {
    if (product != null) {
      product.close();
    }
    if (cp != null && podNamespace != null) {
      cp.client().namespaces().withName(podNamespace).delete();
    }
    bridges.values().forEach(b -> Commands.run("ip", "link", "del", b));
  }

  @Test
  @Order(1)
  void helmInstallMadeEveryObjectOfTheChart() {
    CommandResult manifest =
        product
            .helm(
                List.of(
                    "get", "manifest", LocalProduct.RELEASE, "--namespace", LocalProduct.NAMESPACE))
            .orThrow("helm get manifest");
    CommandResult found = cp.kubectlWithInput(manifest.stdout(), "get", "-f", "-", "-o", "name");
    assertThat(found.ok()).as(found.stderr()).isTrue();
    assertThat(found.stdout())
        .contains(
            "deployment.apps/cni-operator-operator",
            "daemonset.apps/cni-operator-agent",
            "serviceaccount/cni-operator-agent",
            "clusterrole.rbac.authorization.k8s.io/cni-operator-agent",
            "validatingadmissionpolicy.admissionregistration.k8s.io/"
                + "cni-operator-agent-node-restriction");
    for (String crd : List.of("cninetworks", "cninodes", "cniplugins")) {
      cp.kubectl(
              "wait",
              "--for=condition=Established",
              "crd/" + crd + ".cnioperator.dev",
              "--timeout=60s")
          .orThrow("CRD " + crd);
    }
  }

  @Test
  @Order(2)
  void aNetworkSelectingTheLabelledNodesLandsOnExactlyThemAndIsReady() {
    String name = TestNames.unique("sel");
    apply(bridgeNetwork(name, "matchLabels: {" + LABEL + ": " + SELECTED + "}", 60, 300));
    waitReady(name);

    String file = "50-" + name + ".conflist";
    assertThat(nodeA.conflist(file)).isPresent();
    assertThat(nodeB.conflist(file)).isPresent();
    assertThat(networksOf(nodeC)).doesNotContain(name);
    CniNetwork net = network(name);
    assertThat(net.getStatus().getNodes().getSelected()).isEqualTo(2);
    assertThat(nodeA.conflist(file).orElseThrow())
        .isEqualTo(net.getStatus().getRendered().getContent());
    delete(name);
  }

  @Test
  @Order(3)
  void anAgentCanWriteOnlyItsOwnNodesStatusAndNoNetwork() {
    try (KubernetesClient asAgentA = cp.clientForToken(product.agentToken(nodeA.name()))) {
      await().atMost(WAIT).until(() -> cniNode(nodeB.name()).isPresent());
      CniNode other = asAgentA.resources(CniNode.class).withName(nodeB.name()).get();
      assertThat(other).as("the agent may read CniNodes").isNotNull();

      other.setStatus(new CniNodeStatus());
      KubernetesClientException denied =
          assertThrows(
              KubernetesClientException.class,
              () -> asAgentA.resources(CniNode.class).resource(other).updateStatus());
      assertThat(denied.getCode()).isIn(403, 422);

      CniNetwork anyNetwork = new CniNetwork();
      anyNetwork.getMetadata().setName(TestNames.unique("rogue"));
      KubernetesClientException forbidden =
          assertThrows(
              KubernetesClientException.class,
              () -> asAgentA.resources(CniNetwork.class).resource(anyNetwork).create());
      assertThat(forbidden.getCode()).isEqualTo(403);

      CniNode own = asAgentA.resources(CniNode.class).withName(nodeA.name()).get();
      asAgentA.resources(CniNode.class).resource(own).updateStatus();
    }
  }

  @Test
  @Order(4)
  void checkCountsRealAttachmentsAndABrokenOneDegradesTheNetworkNamingNodeAndPod() {
    String name = TestNames.unique("chk");
    apply(ptpNetwork(name, "matchLabels: {kubernetes.io/hostname: " + nodeA.name() + "}"));
    waitReady(name);
    String file = "50-" + name + ".conflist";
    try (PodAttachments pods = new PodAttachments(cp.client(), nodeA, podNamespace)) {
      PodAttachment p1 = pods.addWithLibrary(name + "-p1", file);
      pods.addWithLibrary(name + "-p2", file);
      pods.addWithCnitool(name + "-p3", file);

      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                NodeNetworkStatus s = nodeStatus(nodeA.name(), name).orElseThrow();
                assertThat(s.getAttachments().getTotal()).isEqualTo(3);
                assertThat(s.getAttachments().getHealthy()).isEqualTo(3);
              });

      pods.breakInterface(p1);

      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                Condition degraded = condition(name, "Degraded").orElseThrow();
                assertThat(degraded.getStatus()).isEqualTo("True");
                assertThat(degraded.getMessage()).contains(nodeA.name()).contains(p1.name());
              });
      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .untilAsserted(
              () ->
                  assertThat(cp.client().v1().events().inNamespace(podNamespace).list().getItems())
                      .anyMatch(
                          e ->
                              p1.name().equals(e.getInvolvedObject().getName())
                                  && "Pod".equals(e.getInvolvedObject().getKind())));
    }
    delete(name);
  }

  @Test
  @Order(5)
  void aPodGoneWithoutDelHasItsReservationReclaimedAfterTheGracePeriod() throws IOException {
    String name = TestNames.unique("gc");
    apply(bridgeNetwork(name, "matchLabels: {kubernetes.io/hostname: " + nodeB.name() + "}", 5, 5));
    waitReady(name);
    String file = "50-" + name + ".conflist";
    Path reservations = work.resolve("ipam/" + name);
    try (PodAttachments pods = new PodAttachments(cp.client(), nodeB, podNamespace)) {
      PodAttachment live = pods.addWithLibrary(name + "-live", file);
      pods.addWithLibrary(name + "-live2", file);
      PodAttachment gone = pods.addWithLibrary(name + "-gone", file);
      assertThat(HostLocalStore.reservedIps(reservations)).hasSize(3);

      pods.vanishWithoutDel(gone);

      await()
          .atMost(WAIT)
          .ignoreExceptions()
          .untilAsserted(
              () -> {
                assertThat(HostLocalStore.reservedIps(reservations)).hasSize(2);
                NodeNetworkStatus s = nodeStatus(nodeB.name(), name).orElseThrow();
                assertThat(s.getIpam().getReclaimed()).isEqualTo(1);
              });
      assertThat(live.netns().exec("ip", "-o", "-4", "addr", "show", "dev", "eth0"))
          .contains("10.200.");
    }
    delete(name);
  }

  @Test
  @Order(6)
  void editsReachTheNodesAndAnInvalidEditKeepsTheLastValidRevision() {
    String name = TestNames.unique("edit");
    String selector = "matchLabels: {" + LABEL + ": " + SELECTED + "}";
    apply(bridgeNetwork(name, selector, 60, 300));
    waitReady(name);
    String file = "50-" + name + ".conflist";

    apply(bridgeNetwork(name, selector, 60, 300).replace("mtu: 1400", "mtu: 1300"));
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(nodeA.conflist(file).orElseThrow()).contains("1300");
              assertThat(nodeB.conflist(file).orElseThrow()).contains("1300");
            });
    waitReady(name);
    String lastValid = nodeA.conflist(file).orElseThrow();

    // Valid for the API server's schema, invalid by the CNI spec (a DNS server must be an IP
    // address): refused by the operator, not at the door.
    apply(
        bridgeNetwork(name, selector, 60, 300)
            .replace("mtu: 1400", "dns: {nameservers: [ns1.example]}"));
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Condition accepted = condition(name, "Accepted").orElseThrow();
              assertThat(accepted.getStatus()).isEqualTo("False");
              assertThat(accepted.getMessage()).contains("nameservers");
            });
    assertThat(nodeA.conflist(file)).contains(lastValid);
    assertThat(nodeB.conflist(file)).contains(lastValid);

    // Refused at the door, with the field named.
    CommandResult refused =
        cp.kubectlWithInput(
            bridgeNetwork(name, selector, 60, 300).replace("priority: 50", "priority: 150"),
            "apply",
            "-f",
            "-");
    assertThat(refused.ok()).isFalse();
    assertThat(refused.stderr()).contains("spec.priority");
    delete(name);
  }

  @Test
  @Order(7)
  void deletingANetworkRemovesItsFilesFromBothNodesAndLeavesForeignFilesAlone() throws IOException {
    Path foreignA =
        Files.writeString(
            nodeA.confDir().resolve("10-foreign.conflist"),
            "{\"cniVersion\":\"1.0.0\",\"name\":\"foreign\",\"plugins\":[{\"type\":\"loopback\"}]}");
    Path foreignB = Files.writeString(nodeB.confDir().resolve("99-foreign.conf"), "not mine");
    try {
      String name = TestNames.unique("del");
      apply(bridgeNetwork(name, "matchLabels: {" + LABEL + ": " + SELECTED + "}", 60, 300));
      waitReady(name);
      String file = "50-" + name + ".conflist";
      assertThat(nodeA.conflist(file)).isPresent();

      cp.kubectl("delete", "cninetwork", name, "--timeout=120s").orThrow("kubectl delete");

      assertThat(nodeA.conflist(file)).isEmpty();
      assertThat(nodeB.conflist(file)).isEmpty();
      assertThat(Files.readString(foreignA)).contains("\"name\":\"foreign\"");
      assertThat(Files.readString(foreignB)).isEqualTo("not mine");
    } finally {
      Files.deleteIfExists(foreignA);
      Files.deleteIfExists(foreignB);
    }
  }

  @Test
  @Order(90)
  void theUninstallHookDeletesEveryNetworkAndItsFilesLeaveEveryNode() {
    String first = TestNames.unique("gone");
    String second = TestNames.unique("gone");
    apply(bridgeNetwork(first, "matchLabels: {" + LABEL + ": " + SELECTED + "}", 60, 300));
    apply(bridgeNetwork(second, "matchLabels: {" + LABEL + ": " + SELECTED + "}", 60, 300));
    waitReady(first);
    waitReady(second);
    List<String> files = List.of("50-" + first + ".conflist", "50-" + second + ".conflist");
    for (String file : files) {
      assertThat(nodeA.conflist(file)).isPresent();
      assertThat(nodeB.conflist(file)).isPresent();
    }
    // The hook's ServiceAccount and RBAC exactly as the chart renders them; there is no kubelet
    // to run its Job, so the test runs the Job's command with that account's token.
    String hook =
        product
            .helm(
                List.of(
                    "template",
                    LocalProduct.RELEASE,
                    Helm.chartDir().toString(),
                    "--namespace",
                    LocalProduct.NAMESPACE,
                    "--kube-version",
                    ToolPaths.kubernetesVersion(),
                    "--set",
                    "agent.removeConflistsOnUninstall=true",
                    "--show-only",
                    "templates/uninstall-hook.yaml"))
            .orThrow("helm template")
            .stdout();
    String rbac =
        Arrays.stream(hook.split("(?m)^---$"))
            .filter(doc -> !doc.contains("kind: Job"))
            .collect(Collectors.joining("\n---\n"));
    cp.kubectlWithInput(rbac, "apply", "-f", "-").orThrow("kubectl apply the hook's RBAC");
    try {
      CommandResult run =
          product.runOperatorCommand(
              LocalProduct.RELEASE + "-uninstall",
              List.of("delete-networks", "--timeout=120s"),
              Duration.ofMinutes(3));
      assertThat(run.exitCode()).as("delete-networks: %s%s", run.stdout(), run.stderr()).isZero();
      assertThat(run.stdout()).contains(first).contains(second).contains("delete-networks-done");
    } finally {
      cp.kubectlWithInput(rbac, "delete", "-f", "-", "--ignore-not-found");
    }
    assertThat(cp.kubectl("get", "cninetworks", "-o", "name").stdout()).isBlank();
    for (String file : files) {
      assertThat(nodeA.conflist(file)).as("%s on node A", file).isEmpty();
      assertThat(nodeB.conflist(file)).as("%s on node B", file).isEmpty();
    }
  }

  @Test
  @Order(100)
  void helmUninstallLeavesNoObjectOfTheChartBehind() {
    CommandResult manifest =
        product
            .helm(
                List.of(
                    "get", "manifest", LocalProduct.RELEASE, "--namespace", LocalProduct.NAMESPACE))
            .orThrow("helm get manifest");
    product.stopProcesses();
    product.uninstall().orThrow("helm uninstall");

    CommandResult left =
        cp.kubectlWithInput(
            manifest.stdout(), "get", "-f", "-", "-o", "name", "--ignore-not-found");
    assertThat(left.stdout().strip()).isEmpty();
  }

  // ---- helpers -------------------------------------------------------------------------------

  /**
   * A ptp + host-local network CHECKed every 5 s. Not bridge: a Linux bridge takes the lowest MAC
   * of its ports, so every port added or removed changes it and the bridge plugin's CHECK of the
   * other attachments fails against their cached result.
   */
  private String ptpNetwork(String name, String selector) {
    return bridgeNetwork(name, selector, 5, 3600)
        .replace("type: bridge\n    bridge: " + bridges.get(name) + "\n", "type: ptp\n");
  }

  /** A bridge + host-local network with its IPAM store in the test's directory. */
  private String bridgeNetwork(String name, String selector, int checkSeconds, int graceSeconds) {
    String bridge = bridges.computeIfAbsent(name, n -> TestNames.unique("br"));
    String ranges =
        "[[{subnet: 10.200.%d.0/24}]]".formatted(100 + Math.floorMod(name.hashCode(), 100));
    return CniNetworkYaml.named(name)
        .priority(50)
        .nodeSelector(selector)
        .plugin(
            "type: bridge\nbridge: %s\nmtu: 1400\n%s"
                .formatted(bridge, CniNetworkYaml.hostLocal(ranges, work.resolve("ipam"))))
        .checkEvery(checkSeconds)
        .spec(
            "ipamCleanup: {enabled: true, gracePeriodSeconds: %d, dryRun: false}"
                .formatted(graceSeconds))
        .yaml();
  }

  private void apply(String yaml) {
    networks.apply(yaml);
  }

  private void waitReady(String name) {
    networks.waitReady(name);
  }

  private String describe(String name) {
    return networks.describe(name);
  }

  private void delete(String name) {
    networks.tryDelete(name);
  }

  private CniNetwork network(String name) {
    return networks.network(name);
  }

  private Optional<Condition> condition(String network, String type) {
    return networks.condition(network, type);
  }

  private Optional<CniNode> cniNode(String node) {
    return networks.cniNode(node);
  }

  private List<String> networksOf(String node) {
    return networks.networksOf(node);
  }

  private Optional<NodeNetworkStatus> nodeStatus(String node, String network) {
    return networks.nodeStatus(node, network);
  }
}
