package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodeSlice;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A secondary network through Multus on two real nodes ({@link KubeletCluster}), as a Multus user
 * runs one ({@link ThinMultus}: the thin plugin as each node's first configuration, delegating to
 * the product's pod network, the real NetworkAttachmentDefinition CRD, nodes whose uplinks have
 * different names on one L2 segment); the product installed from its published chart; a macvlan
 * network on each node's own uplink whose host-local range is each node's slice of one shared
 * subnet.
 *
 * <p>Set up once: the scenarios run in order on what it left running.
 *
 * <ul>
 *   <li>Pods annotated with the network get {@code net1} on their node's uplink with an address
 *       from their node's slice; no two pods share one, and two pods on different nodes reach each
 *       other over it; Multus's {@code network-status} annotation shows the interface; the operator
 *       made the config-less NAD; the pod network's attachments, now Multus's delegates, are still
 *       CHECKed.
 *   <li>A flushed {@code net1} makes the network Degraded naming the pod.
 *   <li>An edit goes through the staged rollout to both nodes' Multus directories.
 *   <li>After containerd loses a node's pods, no reservation of the secondary network is left for
 *       them.
 *   <li>A node without the uplink label does not get the network, and the status says why.
 *   <li>Deleting the network, the last Multus network, takes Multus's directory the agent made off
 *       every node; applied again, the network gets it back.
 *   <li>{@code helm uninstall} leaves the files.
 * </ul>
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultusE2E {
  private static final Duration ROLLOUT = Duration.ofMinutes(4);
  private static final String POD_NETWORK = "mpod";
  private static final String POD_NETWORK_FILE = "10-" + POD_NETWORK + ".conflist";
  private static final String POD_BRIDGE = "cbmts0";
  private static final String LAN = "lan";
  private static final String LAN_FILE = "50-" + LAN + ".conflist";

  /** The segment's subnet: the test's own (the cluster's pods are in 10.232.0.0/16). */
  private static final String SUBNET = "10.234.0.0/24";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static KubeletCluster cluster;
  private static LocalControlPlane cp;
  private static ChartRelease release;
  private static String apps;
  private static ThinMultus multus;

  @BeforeAll
  static void startCluster() throws IOException {
    cluster = KubeletCluster.start(2);
    cp = cluster.controlPlane();
    PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
    multus = ThinMultus.prepare(cluster, POD_NETWORK_FILE);

    release = ChartRelease.install(cp, product, "mts", ChartRelease.onNodes(cluster));
    cp.kubectlWithInput(POD_NETWORK_YAML, "apply", "-f", "-").orThrow("apply the pod network");
    release.awaitProductRollout(cluster, ROLLOUT);
    for (KubeletNode node : cluster.nodes()) {
      await("the pod network's file on " + node.name())
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.exists(node.cniConfDir().resolve(POD_NETWORK_FILE)));
    }
    multus.install();

    apps = NodePods.appsNamespace(cp.client());
    cp.kubectlWithInput(lanYaml(""), "apply", "-f", "-").orThrow("apply lan");
    ClusterNetworks.on(cp).waitReady(LAN);
    ThinMultus.createPausePods(cp.client(), apps, 4, LAN);
    awaitRunningPods(4);
  }

  @AfterAll
  static void stopCluster() {
    Teardown.closeAll(
        () -> {
          if (multus != null) {
            multus.keepLogs(Path.of("target/it-logs/multus-e2e").toAbsolutePath());
          }
        },
        release,
        cluster,
        multus);
  }

  @Test
  @Order(1)
  void podsGetNet1OnTheirNodesUplinkWithAnAddressFromTheirNodesSlice() throws IOException {
    KubernetesClient client = cp.client();
    GenericKubernetesResource nad =
        client.genericKubernetesResources(ThinMultus.NAD).inNamespace(apps).withName(LAN).get();
    assertThat(nad).as("the NetworkAttachmentDefinition %s/%s", apps, LAN).isNotNull();
    assertThat(nad.getAdditionalProperties().get("spec"))
        .as("its spec: config-less, so Multus reads the node's file")
        .satisfiesAnyOf(
            s -> assertThat(s).isNull(),
            s -> assertThat(String.valueOf(((Map<?, ?>) s).get("config"))).isIn("null", ""));

    Map<String, String> slices = slices(client);
    assertThat(slices.keySet())
        .containsExactlyInAnyOrderElementsOf(
            cluster.nodes().stream().map(KubeletNode::name).toList());
    assertThat(new TreeSet<>(slices.values())).as("slices are disjoint").hasSize(2);

    Set<String> seen = new TreeSet<>();
    Map<String, Pod> oneOnEachNode = new LinkedHashMap<>();
    for (Pod pod : pods()) {
      String nodeName = pod.getSpec().getNodeName();
      KubeletNode node = node(nodeName);
      JsonNode net1 = ThinMultus.networkStatus(pod, "net1");
      String ip = net1.path("ips").path(0).asText();
      assertThat(inSlice(ip, slices.get(nodeName)))
          .as("net1 address %s of %s within %s's slice %s", ip, name(pod), nodeName, slices)
          .isTrue();
      assertThat(seen.add(ip)).as("%s is handed out once", ip).isTrue();
      assertThat(uplinkOf(node, pod))
          .as("master of net1 in %s", name(pod))
          .isEqualTo(multus.uplink(node));
      oneOnEachNode.putIfAbsent(nodeName, pod);
    }
    assertThat(oneOnEachNode).as("a pod on each node").hasSize(2);

    List<Pod> pair = new ArrayList<>(oneOnEachNode.values());
    assertThat(
            NodePods.tcpAnswer(
                node(pair.get(0).getSpec().getNodeName()),
                pair.get(0),
                node(pair.get(1).getSpec().getNodeName()),
                pair.get(1),
                ThinMultus.address(pair.get(1), "net1")))
        .as("TCP over net1 from a pod on one node to a pod on the other")
        .isEqualTo("pong");

    for (KubeletNode node : cluster.nodes()) {
      assertThat(node.hostPath(ThinMultus.CONF_DIR).resolve(LAN_FILE)).exists();
      assertThat(node.cniConfDir().resolve(LAN_FILE))
          .as("a secondary network never in the runtime's directory")
          .doesNotExist();
    }
    awaitAttachmentsHealthy(POD_NETWORK);
    awaitAttachmentsHealthy(LAN);
  }

  @Test
  @Order(2)
  void aFlushedNet1DegradesTheNetworkNamingThePod() {
    KubernetesClient client = cp.client();
    awaitAttachmentsHealthy(LAN);
    Pod broken = pods().get(0);
    KubeletNode node = node(broken.getSpec().getNodeName());
    NodePods.inPodNetwork(node, broken, "ip", "addr", "flush", "dev", "net1")
        .orThrow("ip addr flush dev net1 in " + name(broken));
    await("Degraded naming " + name(broken))
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Condition degraded = condition(network(client, LAN), "Degraded");
              assertThat(degraded.getStatus()).isEqualTo("True");
              assertThat(degraded.getMessage())
                  .contains(node.name())
                  .contains("pod " + apps + "/" + name(broken));
            });
    assertThat(condition(network(client, POD_NETWORK), "Degraded").getStatus())
        .as("the pod network's eth0 is untouched")
        .isEqualTo("False");
    client.pods().inNamespace(apps).withName(name(broken)).withGracePeriod(0).delete();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> client.pods().inNamespace(apps).withName(name(broken)).get() == null);
    awaitRunningPods(4);
    awaitAttachmentsHealthy(LAN);
  }

  @Test
  @Order(3)
  void anEditGoesThroughTheStagedRolloutToBothNodesMultusDirectories() {
    KubernetesClient client = cp.client();
    Map<String, String> before = new HashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      before.put(node.name(), read(node.hostPath(ThinMultus.CONF_DIR).resolve(LAN_FILE)));
    }
    String stable = network(client, LAN).getStatus().getRendered().getSha256();
    cp.kubectlWithInput(lanYaml("      mtu: 1400\n"), "apply", "-f", "-").orThrow("apply the edit");
    await("a rollout of the edit, with its own revision")
        .atMost(Duration.ofSeconds(30))
        .until(() -> !stable.equals(network(client, LAN).getStatus().getRendered().getSha256()));
    ClusterNetworks.on(cp).waitRolledOut(LAN);
    CniNetwork edited = network(client, LAN);
    assertThat(edited.getStatus().getRollout().getRevision())
        .isEqualTo(edited.getStatus().getRendered().getSha256());
    assertThat(edited.getStatus().getRollout().getPhase()).isEqualTo(RolloutPhase.Complete);
    assertThat(edited.getStatus().getRollout().getUpdatedNodes()).isEqualTo(2);
    for (KubeletNode node : cluster.nodes()) {
      String now = read(node.hostPath(ThinMultus.CONF_DIR).resolve(LAN_FILE));
      assertThat(now).as("the file on %s", node.name()).isNotEqualTo(before.get(node.name()));
      assertThat(json(now).at("/plugins/0/mtu").asInt())
          .as("mtu on %s", node.name())
          .isEqualTo(1400);
    }
  }

  @Test
  @Order(4)
  void afterContainerdLostANodesPodsNoReservationOfTheSecondaryNetworkIsLeftForThem() {
    KubernetesClient client = cp.client();
    KubeletNode node = cluster.nodes().get(1);
    awaitAttachmentsHealthy(LAN);
    List<Pod> lost = podsOn(node);
    Set<String> lostIps = new TreeSet<>();
    for (Pod p : lost) {
      lostIps.add(ThinMultus.address(p, "net1"));
    }
    assertThat(ThinMultus.reservations(node, LAN))
        .as("reservations of %s before", LAN)
        .isEqualTo(lostIps);
    List<String> sandboxes = lost.stream().map(p -> NodePods.sandboxId(node, p)).toList();
    node.withKubeletFrozen(() -> sandboxes.forEach(id -> node.containerd().loseSandbox(id)));
    assertThat(ThinMultus.reservations(node, LAN))
        .as("no DEL ran for the lost sandboxes")
        .containsAll(lostIps);
    await("the lost pods' sandboxes are recreated on " + node.name())
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              List<String> ready = NodePods.readySandboxes(node, apps);
              return ready.size() == lost.size() && ready.stream().noneMatch(sandboxes::contains);
            });
    await("only running pods' net1 addresses stay reserved on " + node.name())
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              Set<String> running = new TreeSet<>();
              for (Pod p : podsOn(node)) {
                running.add(ThinMultus.address(client.pods().resource(p).get(), "net1"));
              }
              assertThat(ThinMultus.reservations(node, LAN))
                  .isEqualTo(running)
                  .doesNotContainAnyElementsOf(lostIps);
            });
  }

  @Test
  @Order(5)
  void aNodeWithoutTheUplinkLabelDoesNotGetTheNetworkAndTheStatusSaysWhy() {
    KubernetesClient client = cp.client();
    KubeletNode node = cluster.nodes().get(1);
    node.label(ThinMultus.UPLINK_LABEL, null);
    try {
      await("the CniNode of " + node.name() + " says why it has no " + LAN)
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                NodeNetwork entry =
                    client
                        .resources(CniNode.class)
                        .withName(node.name())
                        .get()
                        .getSpec()
                        .getNetworks()
                        .stream()
                        .filter(n -> LAN.equals(n.getName()))
                        .findFirst()
                        .orElseThrow();
                assertThat(entry.getContent()).isNull();
                assertThat(entry.getUnavailable()).contains(ThinMultus.UPLINK_LABEL);
                assertThat(condition(network(client, LAN), "Ready").getMessage())
                    .contains(node.name());
              });
      System.out.printf(
          "event=multus-e2e-unlabelled%n%s%n",
          cp.kubectl("get", "cninetwork", LAN, "-o", "yaml").stdout());
    } finally {
      node.label(ThinMultus.UPLINK_LABEL, multus.uplink(node));
    }
    ClusterNetworks.on(cp).waitReady(LAN);
  }

  /**
   * Multus's file is what the runtime loads, with a copy of the pod network in it: the CniNode says
   * so, and whether the copy is the pod network's file as it is now. An edit of the pod network
   * leaves the copy behind (a thin install writes it once; the thick daemon would write it again),
   * and the CniNode says that too, until the installer writes the file again.
   */
  @Test
  @Order(6)
  void theCniNodeSaysWhetherMultussCopyOfThePodNetworkIsCurrent() throws IOException {
    awaitMultusCopy(true, "as it is now");
    cp.kubectlWithInput(
            ClusterNetworks.podNetwork(
                POD_NETWORK, POD_BRIDGE, "ipamCleanup: {gracePeriodSeconds: 30}", "mtu: 1450"),
            "apply",
            "-f",
            "-")
        .orThrow("apply an edit of the pod network");
    ClusterNetworks.on(cp).waitRolledOut(POD_NETWORK);
    awaitMultusCopy(false, "differs from " + POD_NETWORK_FILE + " now");
    System.out.printf(
        "event=multus-e2e-stale-copy%n$ kubectl get cninode %s -o jsonpath={.status.defaultFile}%n%s%n",
        cluster.nodes().get(0).name(),
        cp.kubectl(
                "get",
                "cninode",
                cluster.nodes().get(0).name(),
                "-o",
                "jsonpath={.status.defaultFile}")
            .stdout());
    for (KubeletNode node : cluster.nodes()) {
      multus.writeConf(node);
    }
    awaitMultusCopy(true, "as it is now");
  }

  /** Every node's CniNode says the runtime loads Multus's file, with a copy of the pod network. */
  private static void awaitMultusCopy(boolean current, String saying) {
    for (KubeletNode node : cluster.nodes()) {
      await(
              "the CniNode of "
                  + node.name()
                  + " saying Multus's copy is "
                  + (current ? "" : "not ")
                  + "current")
          .atMost(Duration.ofSeconds(120))
          .untilAsserted(
              () -> {
                var file =
                    cp.client()
                        .resources(CniNode.class)
                        .withName(node.name())
                        .get()
                        .getStatus()
                        .getDefaultFile();
                assertThat(file).isNotNull();
                assertThat(file.getFileName()).isEqualTo(ThinMultus.FILE);
                assertThat(file.getNetworkName()).isEqualTo("multus-cni-network");
                assertThat(file.getCopyOf()).isEqualTo(POD_NETWORK);
                assertThat(file.getCopyCurrent()).isEqualTo(current);
                assertThat(file.getMessage()).contains(saying);
              });
    }
  }

  /**
   * Issue 52: no node had Multus's directory before the network (Multus's thin plugin only reads
   * it): the agent made it for the network's file, and takes it off with the last such file, so
   * that a node keeps no trace of a feature it no longer uses.
   */
  @Test
  @Order(7)
  void deletingTheLastMultusNetworkTakesTheDirectoryTheAgentMadeOffEveryNode() {
    for (KubeletNode node : cluster.nodes()) {
      assertThat(node.hostPath(ThinMultus.CONF_DIR).resolve(LAN_FILE)).exists();
    }
    cp.kubectl("delete", "cninetwork", LAN, "--timeout=120s").orThrow("delete " + LAN);
    for (KubeletNode node : cluster.nodes()) {
      await("no /etc/cni/multus left on " + node.name())
          .atMost(Duration.ofSeconds(60))
          .until(() -> !Files.exists(node.hostPath("/etc/cni/multus")));
      assertThat(node.cniConfDir().resolve(POD_NETWORK_FILE)).exists();
    }
    cp.kubectlWithInput(lanYaml(""), "apply", "-f", "-").orThrow("apply lan again");
    ClusterNetworks.on(cp).waitReady(LAN);
    for (KubeletNode node : cluster.nodes()) {
      assertThat(node.hostPath(ThinMultus.CONF_DIR).resolve(LAN_FILE)).exists();
    }
  }

  @Test
  @Order(8)
  void uninstallLeavesTheFiles() {
    System.out.printf(
        "event=multus-e2e-as-a-user-sees-it%n%s%n%s%n%s%n",
        cp.kubectl("get", "cninetwork", LAN, "-o", "wide").stdout(),
        cp.kubectl("get", "network-attachment-definitions", "-A").stdout(),
        pods().stream()
            .map(
                p ->
                    p.getSpec().getNodeName()
                        + " "
                        + name(p)
                        + " "
                        + p.getMetadata().getAnnotations().get("k8s.v1.cni.cncf.io/network-status"))
            .collect(Collectors.joining("\n")));
    release.uninstall().orThrow("helm uninstall");
    for (KubeletNode node : cluster.nodes()) {
      assertThat(node.hostPath(ThinMultus.CONF_DIR).resolve(LAN_FILE)).exists();
      assertThat(node.cniConfDir().resolve(POD_NETWORK_FILE)).exists();
    }
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The name, in the node's namespace, of the link that is net1's master in the pod. */
  private static String uplinkOf(KubeletNode node, Pod pod) throws IOException {
    JsonNode link =
        JSON.readTree(
                NodePods.inPodNetwork(node, pod, "ip", "-j", "-d", "link", "show", "net1")
                    .orThrow("ip link show net1")
                    .stdout())
            .path(0);
    assertThat(link.path("linkinfo").path("info_kind").asText()).isEqualTo("macvlan");
    int master = link.path("link_index").asInt();
    for (JsonNode l :
        JSON.readTree(node.exec("ip", "-j", "link", "show").orThrow("ip link").stdout())) {
      if (l.path("ifindex").asInt() == master) {
        return l.path("ifname").asText();
      }
    }
    throw new AssertionError("no link with index " + master + " on " + node.name());
  }

  private static Map<String, String> slices(KubernetesClient client) {
    List<NodeSlice> slices = network(client, LAN).getStatus().getSlices();
    assertThat(slices).as("status.slices of %s", LAN).isNotNull();
    return slices.stream().collect(Collectors.toMap(NodeSlice::getNode, NodeSlice::getSlice));
  }

  static boolean inSlice(String ip, String cidr) {
    try {
      String[] parts = cidr.split("/");
      int len = Integer.parseInt(parts[1]);
      BigInteger base = new BigInteger(1, InetAddress.getByName(parts[0]).getAddress());
      BigInteger addr = new BigInteger(1, InetAddress.getByName(ip).getAddress());
      int bits = InetAddress.getByName(parts[0]).getAddress().length * 8;
      return addr.shiftRight(bits - len).equals(base.shiftRight(bits - len));
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(ip + " / " + cidr, e);
    }
  }

  private static void awaitAttachmentsHealthy(String network) {
    await("healthy " + network + " attachments as many as running pods on every node")
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              for (KubeletNode node : cluster.nodes()) {
                int pods = podsOn(node).size();
                NodeNetworkStatus s =
                    cp.client()
                        .resources(CniNode.class)
                        .withName(node.name())
                        .get()
                        .getStatus()
                        .network(network)
                        .orElseThrow();
                AttachmentSummary a = s.getAttachments();
                assertThat(a).as("%s attachments on %s", network, node.name()).isNotNull();
                assertThat(a.getTotal()).as("%s on %s", network, node.name()).isEqualTo(pods);
                assertThat(a.getHealthy()).as("healthy on %s", node.name()).isEqualTo(pods);
              }
              assertThat(condition(network(cp.client(), network), "Degraded").getStatus())
                  .isEqualTo("False");
            });
  }

  private static void awaitRunningPods(int count) {
    await().atMost(Duration.ofSeconds(150)).until(() -> pods().size() == count);
  }

  /** The running pods of the test namespace, none terminating. */
  private static List<Pod> pods() {
    return cp.client().pods().inNamespace(apps).withLabel("app", "pause").list().getItems().stream()
        .filter(MultusE2E::running)
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  private static List<Pod> podsOn(KubeletNode node) {
    return pods().stream().filter(p -> node.name().equals(p.getSpec().getNodeName())).toList();
  }

  private static boolean running(Pod p) {
    return p != null
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase())
        && p.getStatus().getPodIP() != null;
  }

  private static KubeletNode node(String name) {
    return cluster.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
  }

  private static CniNetwork network(KubernetesClient client, String name) {
    return client.resources(CniNetwork.class).withName(name).get();
  }

  private static Condition condition(CniNetwork network, String type) {
    return network.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name(network) + " has no condition " + type));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String name(HasMetadata object) {
    return object.getMetadata().getName();
  }

  private static final String POD_NETWORK_YAML =
      ClusterNetworks.podNetwork(POD_NETWORK, POD_BRIDGE);

  /** The secondary network, with {@code macvlanLines} added to its macvlan plugin. */
  private static String lanYaml(String macvlanLines) {
    return ThinMultus.macvlanNetwork(LAN, 50, apps, SUBNET, macvlanLines);
  }
}
