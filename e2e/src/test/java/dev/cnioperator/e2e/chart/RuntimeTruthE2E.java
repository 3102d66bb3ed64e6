package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.crio.CrioRelease;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Whether the status tells the truth on one runtime (a subclass per containerd release), on a
 * one-node kubelet cluster installed as users install it: {@code bin/publish} pushes the images and
 * the chart to a registry, {@code helm install oci://... --wait} with the chart's defaults (but the
 * API server's address, and a state dir of the node's own); the node's containerd pulls the images
 * by digest. Nothing about the runtime is set, so the agent finds containerd's socket where the
 * chart's default profile says.
 *
 * <ul>
 *   <li>One node is a cluster too: the install returns with every pod of the release ready, and
 *       every command its notes print completes.
 *   <li>A healthy pod is counted healthy (on containerd 1.6 and 1.7 libcni caches no netns: the
 *       agent learns it from the runtime), and one whose interface is broken is reported failing,
 *       naming it, with a Warning Event.
 *   <li>A node where ADD cannot succeed is never Ready, with the reason: a bridge of the network's
 *       name that holds another address (a leftover of an earlier pod network), a macvlan master
 *       the node does not have, a 1.1.0 network on containerd 1.6 or 1.7 (which load it and fail
 *       every ADD). Once the cause is gone the network is Ready by itself. A network whose plugin
 *       the node lacks (not in its bin dir, not bundled) is never Ready there, naming the plugin,
 *       and its file is never written.
 *   <li>A broken edit is rolled back on the one node: of the proven pod network, and of the network
 *       that never proved its first revision (back to that one, said to be unproven).
 * </ul>
 *
 * <p>The pod network is one conflist for every runtime, as a cluster of mixed nodes needs it:
 * cniVersion 1.0.0 with cniVersions [1.0.0, 1.1.0]. containerd 1.6 and 1.7 cannot ADD a 1.1.0
 * network (their libcni knows no 1.1.0 result) and read cniVersion alone; containerd 2.x selects
 * 1.1.0, the highest it speaks, and calls CNI STATUS on it. The test reads the version each ADD ran
 * at from libcni's cache.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class RuntimeTruthE2E {
  static final Duration SETTLE = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long {@code helm install --wait} may take: the node pulls both images first. */
  private static final Duration INSTALL_WAIT = Duration.ofMinutes(4);

  static final String POD_NETWORK = "truth";
  private static final String BRIDGE = "cbtruth0";

  KubeletCluster cluster;
  LocalControlPlane cp;
  KubeletNode node;
  ChartRelease release;
  String apps;
  private final long started = System.nanoTime();

  /** The runtime release the node runs. */
  abstract RuntimeRelease release();

  /**
   * Whether the node's runtime selects 1.1.0 from a conflist's cniVersions and can ADD a 1.1.0
   * network (libcni 1.2+: containerd 2.x, CRI-O 1.34), or reads cniVersion alone (containerd 1.x).
   */
  private boolean speaks110() {
    return release() == ContainerdRelease.V2_X || release() instanceof CrioRelease;
  }

  @BeforeAll
  void startCluster() {
    cluster = KubeletCluster.start(1, release());
    cp = cluster.controlPlane();
    node = cluster.nodes().get(0);
    PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
    release = ChartRelease.installAndWait(cp, product, "truth", INSTALL_WAIT, testKitValues());
    apps = NodePods.appsNamespace(cp.client());
  }

  @AfterAll
  void stopCluster() {
    try {
      if (release != null) {
        release.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
      System.out.printf(
          "event=runtime-truth-e2e release=%s total_ms=%d%n",
          release(), (System.nanoTime() - started) / 1_000_000);
    }
  }

  /**
   * {@code helm install --wait} returned (the set-up) with the operator Ready (helm counts its one
   * replica); each command the install's notes print then completes, in their order (their {@code
   * rollout status} waits for the agent, which helm counts ready with one node unready), the
   * example network they apply included, which is then deleted again; and every pod of the release
   * is Ready.
   */
  @Test
  @Order(0)
  void onOneNodeEveryPodOfTheReleaseIsReadyAndEachCommandTheNotesPrintCompletes() {
    KubernetesClient client = cp.client();
    assertThat(podsOfTheRelease(client, "operator"))
        .as("operator pods when helm install --wait returned")
        .hasSize(1)
        .allSatisfy(RuntimeTruthE2E::assertReady);
    List<List<String>> commands = NotesCommands.kubectl(release.installOutput());
    assertThat(commands).as("kubectl commands in the notes").hasSizeGreaterThanOrEqualTo(3);
    List<String> applied = new ArrayList<>();
    for (List<String> command : commands) {
      CommandResult run = cp.kubectl(Duration.ofMinutes(3), command.toArray(String[]::new));
      assertThat(run.exitCode())
          .as("kubectl %s: %s%s", String.join(" ", command), run.stdout(), run.stderr())
          .isZero();
      NotesCommands.appliedNames(command, run.stdout()).forEach(applied::add);
    }
    assertThat(applied).as("networks the notes apply").isNotEmpty();
    applied.forEach(this::delete);
    assertThat(podsOfTheRelease(client, "agent"))
        .hasSize(1)
        .allSatisfy(RuntimeTruthE2E::assertReady);
    assertThat(podsOfTheRelease(client, "operator")).allSatisfy(RuntimeTruthE2E::assertReady);
  }

  private List<Pod> podsOfTheRelease(KubernetesClient client, String component) {
    return client
        .pods()
        .inNamespace(release.namespace())
        .withLabel("app.kubernetes.io/component", component)
        .list()
        .getItems();
  }

  private static void assertReady(Pod pod) {
    assertThat(pod.getStatus().getConditions())
        .as("conditions of %s", pod.getMetadata().getName())
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  @Test
  @Order(1)
  void aHealthyPodIsCountedHealthyAndABrokenOneIsReportedFailingNamingIt() throws IOException {
    KubernetesClient client = cp.client();
    apply(podNetwork(""));
    awaitReady(POD_NETWORK);
    Pod pod = runPausePod("healthy");
    assertThat(cachedResultVersions())
        .as("the CNI version of the pod's ADD, in libcni's cache on the node")
        .containsExactly(speaks110() ? "1.1.0" : "1.0.0");

    await("the pod's attachment checked healthy")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              AttachmentSummary a = nodeNetwork(POD_NETWORK).getAttachments();
              assertThat(a.getTotal()).isEqualTo(1);
              assertThat(a.getHealthy()).isEqualTo(1);
              assertThat(a.getUnchecked()).as("unchecked (%s)", a.getUncheckedReason()).isNull();
              assertThat(condition(POD_NETWORK, "Degraded").getStatus()).isEqualTo("False");
            });

    NodePods.inPodNetwork(node, pod, "ip", "addr", "flush", "dev", "eth0")
        .orThrow("ip addr flush dev eth0 in " + pod.getMetadata().getName());
    awaitCondition(
        POD_NETWORK,
        "Degraded",
        "True",
        "AttachmentsFailing",
        node.name(),
        "pod " + apps + "/" + pod.getMetadata().getName());
    await("a CniCheckFailed Event on the broken pod")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                client.v1().events().inNamespace(apps).list().getItems().stream()
                    .anyMatch(
                        e ->
                            "CniCheckFailed".equals(e.getReason())
                                && pod.getMetadata()
                                    .getName()
                                    .equals(e.getInvolvedObject().getName())));
    client
        .pods()
        .inNamespace(apps)
        .withName(pod.getMetadata().getName())
        .withGracePeriod(0)
        .delete();
    await("the network healthy again once the broken pod is gone")
        .atMost(SETTLE)
        .untilAsserted(
            () -> assertThat(condition(POD_NETWORK, "Degraded").getStatus()).isEqualTo("False"));
  }

  @Test
  @Order(2)
  void aBrokenEditOfTheProvenPodNetworkIsRolledBackOnTheOneNode() {
    byte[] before = NodePods.confFile(node, "10-" + POD_NETWORK + ".conflist");
    apply(podNetwork("mtu: 70000"));
    await("the broken edit rolled back")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              CniNetwork net = network(POD_NETWORK);
              assertThat(net.getStatus().getRollout().getPhase())
                  .isEqualTo(RolloutPhase.RolledBack);
              assertThat(NodePods.confFile(node, "10-" + POD_NETWORK + ".conflist"))
                  .isEqualTo(before);
            });
    awaitReady(POD_NETWORK);
    apply(podNetwork(""));
    runPausePod("after-rollback");
  }

  @Test
  @Order(3)
  void aLeftoverBridgeWithAnotherAddressKeepsTheNetworkNotReadyNamingBothUntilItIsGone() {
    String bridge = "cbleft0";
    node.exec("ip", "link", "add", bridge, "type", "bridge").orThrow("ip link add " + bridge);
    node.exec("ip", "addr", "add", "10.239.9.1/24", "dev", bridge).orThrow("ip addr add");
    node.exec("ip", "link", "set", bridge, "up").orThrow("ip link set up");
    String leftover = "leftover";
    apply(ClusterNetworks.gatewayBridgeNetwork(leftover, bridge, "10.239.77.0/24", ""));

    await("Ready=False naming the bridge and both addresses")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              Condition ready = condition(leftover, "Ready");
              assertThat(ready.getStatus()).isEqualTo("False");
              assertThat(ready.getReason()).isEqualTo("ProbeFailed");
              assertThat(ready.getMessage())
                  .contains(node.name())
                  .contains("bridge " + bridge + " on this node holds 10.239.9.1/24")
                  .contains("10.239.77.1/24")
                  .contains("ip link delete " + bridge);
              assertThat(condition(leftover, "Degraded").getStatus()).isEqualTo("True");
              CniNode cniNode = cp.client().resources(CniNode.class).withName(node.name()).get();
              assertThat(cniNode.getStatus().getConditions().get(0).getStatus()).isEqualTo("False");
            });
    printForTheNote(leftover);

    // A broken edit of a network that never proved its first revision goes back to that one.
    apply(ClusterNetworks.gatewayBridgeNetwork(leftover, bridge, "10.239.77.0/24", "mtu: 70000"));
    await("the broken edit rolled back to the unproven first revision")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              CniNetwork net = network(leftover);
              assertThat(net.getStatus().getRollout().getPhase())
                  .isEqualTo(RolloutPhase.RolledBack);
              assertThat(net.getStatus().getRollout().getStableUnproven()).isTrue();
              assertThat(condition(leftover, "RolledOut").getMessage())
                  .contains("never proven on every node");
              assertThat(new String(NodePods.confFile(node, "50-" + leftover + ".conflist")))
                  .doesNotContain("70000");
            });

    apply(ClusterNetworks.gatewayBridgeNetwork(leftover, bridge, "10.239.77.0/24", ""));
    node.exec("ip", "link", "delete", bridge).orThrow("ip link delete " + bridge);
    awaitReady(leftover);
    delete(leftover);
  }

  @Test
  @Order(4)
  void aMissingMacvlanMasterKeepsTheNetworkNotReadyNamingItUntilTheInterfaceExists() {
    String master = "cbmiss0";
    String net = "nomaster";
    apply(ClusterNetworks.macvlanNetwork(net, master, "10.239.78.0/24"));
    awaitCondition(
        net,
        "Ready",
        "False",
        "ProbeFailed",
        "interface " + master + " (the macvlan plugin's \"master\") does not exist on this node");
    // A veth's end as the master: this machine's kernel has no dummy links.
    node.exec("ip", "link", "add", master, "type", "veth", "peer", "name", master + "p")
        .orThrow("ip link add " + master);
    node.exec("ip", "link", "set", master, "up").orThrow("ip link set up");
    try {
      awaitReady(net);
    } finally {
      delete(net);
      node.exec("ip", "link", "delete", master);
    }
  }

  @Test
  @Order(5)
  void aNetworkTheRuntimeCannotAddIsNeverReadyThere() {
    // containerd before 2.0 loads a 1.1.0 network and fails every ADD of it; the agent's own
    // probe would pass, so the agent asks the runtime which it is.
    String net = "onlynew";
    apply(bridgeNetwork(net, "1.1.0", 70, "bridge", "cbnew0", "10.239.79.0/24"));
    try {
      if (speaks110()) {
        awaitReady(net);
        return;
      }
      awaitCondition(
          net, "Ready", "False", "ProbeFailed", "cannot ADD a network whose cniVersion is 1.1.0");
    } finally {
      delete(net);
    }
  }

  @Test
  @Order(6)
  void aNetworkWhosePluginTheNodeLacksIsNeverReadyThereNamingItAndItsFileIsNotWritten() {
    String net = "noplugin";
    String type = "cbnoplugin";
    // The bridge plugin's fields under a type no node has.
    apply(bridgeNetwork(net, "1.0.0", 71, type, "cbnop0", "10.239.80.0/24"));
    try {
      await("Ready=False of " + net + ", naming the missing plugin and the node")
          .atMost(SETTLE)
          .untilAsserted(
              () -> {
                Condition c = condition(net, "Ready");
                assertThat(c.getStatus()).isEqualTo("False");
                assertThat(c.getMessage())
                    .contains(node.name(), "plugin " + type + " is not in the bin dir");
              });
      assertThat(node.cniConfDir().resolve("71-" + net + ".conflist"))
          .as("a network whose plugin is missing is never written")
          .doesNotExist();
      printForTheNote(net);
    } finally {
      delete(net);
    }
  }

  /**
   * The test kit's own settings ({@link ChartRelease#onNodes}), and on a runtime other than
   * containerd the one value the install guide says to set: the chart's profile for it.
   */
  private String[] testKitValues() {
    return ChartRelease.onNodes(cluster, ChartRelease.runtimeValues(release()));
  }

  /**
   * The cniVersion of each result in libcni's cache of the pod network on the node: the version the
   * runtime selected for that ADD.
   */
  private List<String> cachedResultVersions() throws IOException {
    Path results = node.hostPath("/var/lib/cni/results");
    List<String> versions = new ArrayList<>();
    try (Stream<Path> files = Files.list(results)) {
      for (Path f :
          files.filter(f -> f.getFileName().toString().startsWith(POD_NETWORK + "-")).toList()) {
        versions.add(JSON.readTree(f.toFile()).path("result").path("cniVersion").asText());
      }
    }
    return versions;
  }

  /** A network of one plugin of {@code type} with the bridge plugin's fields, and host-local. */
  private static String bridgeNetwork(
      String name, String cniVersion, int priority, String type, String bridge, String subnet) {
    return """
        apiVersion: cnioperator.dev/v1alpha1
        kind: CniNetwork
        metadata:
          name: %s
        spec:
          cniVersion: "%s"
          priority: %d
          plugins:
            - type: %s
              bridge: %s
              ipam: {type: host-local, subnet: %s}
        """
        .formatted(name, cniVersion, priority, type, bridge, subnet);
  }

  /**
   * The pod network from the node's podCIDR: cniVersion 1.0.0 for a runtime that reads it alone,
   * 1.1.0 for one that selects from cniVersions.
   */
  String podNetwork(String extraBridgeField) {
    return ClusterNetworks.podNetwork(
        POD_NETWORK,
        BRIDGE,
        "cniVersions: [\"1.0.0\", \"1.1.0\"]\nipamCleanup: {gracePeriodSeconds: 30}",
        extraBridgeField);
  }

  void apply(String yaml) {
    cp.kubectlWithInput(yaml, "apply", "-f", "-").orThrow("kubectl apply");
  }

  private void delete(String network) {
    cp.kubectl("delete", "cninetwork", network, "--timeout=120s").orThrow("kubectl delete");
  }

  void awaitReady(String network) {
    ClusterNetworks.on(cp).waitReady(network);
  }

  /** What a user sees of a network with one node that cannot ADD, for the record. */
  private void printForTheNote(String network) {
    System.out.printf(
        "event=runtime-truth-e2e release=%s%n$ kubectl get cninetworks -o wide%n%s%n"
            + "$ kubectl describe cninetwork %s%n%s%n",
        release(),
        cp.kubectl("get", "cninetworks", "-o", "wide").stdout(),
        network,
        cp.kubectl("describe", "cninetwork", network).stdout());
  }

  Pod runPausePod(String prefix) {
    String name = TestNames.unique(prefix);
    Pod pod = NodePods.pinnedPausePod(name, node);
    cp.client().pods().inNamespace(apps).resource(pod).create();
    await("pod " + name + " running")
        .atMost(SETTLE)
        .until(
            () -> {
              Pod p = cp.client().pods().inNamespace(apps).withName(name).get();
              return p != null
                  && p.getStatus() != null
                  && "Running".equals(p.getStatus().getPhase())
                  && p.getStatus().getPodIP() != null;
            });
    return cp.client().pods().inNamespace(apps).withName(name).get();
  }

  /**
   * Waits until {@code network}'s condition {@code type} has that status and reason, naming all.
   */
  private void awaitCondition(
      String network, String type, String status, String reason, String... named) {
    await(type + "=" + status + " (" + reason + ") of " + network)
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              Condition c = condition(network, type);
              assertThat(c.getStatus()).isEqualTo(status);
              assertThat(c.getReason()).isEqualTo(reason);
              assertThat(c.getMessage()).contains(named);
            });
  }

  private CniNetwork network(String name) {
    return cp.client().resources(CniNetwork.class).withName(name).get();
  }

  private Condition condition(String network, String type) {
    CniNetwork net = network(network);
    assertThat(net.getStatus()).as("status of %s", network).isNotNull();
    return net.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  NodeNetworkStatus nodeNetwork(String network) {
    CniNode cniNode = cp.client().resources(CniNode.class).withName(node.name()).get();
    return cniNode.getStatus().network(network).orElseThrow();
  }
}
