package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 55 on three real kubelet nodes with the real kube-scheduler (Kubernetes 1.37), the product
 * from {@code helm install}, Multus's thin plugin ({@link ThinMultus}) for the secondary networks.
 *
 * <ul>
 *   <li>A pod asking for the published pod network by its extended resource, and one asking by a
 *       ResourceClaim, are allocated a node's device, prepared by the agent as the kubelet's DRA
 *       plugin, and run; the claim's device status says where the pod is on the network.
 *   <li>A Multus network proven on two nodes and failing its probe on the third (the third node's
 *       uplink label names a link it does not have): in one run, pods that only annotate the
 *       network, as today, land on the third node and stay in ContainerCreating; pods that also ask
 *       for it by its extended resource land only on the other two, and run. A pod asking for it
 *       that may only go to the third stays Pending, and the operator's Event says why.
 *   <li>A broken edit of a network held by one node, rolled back on that node (the canary): a pod
 *       asking for the network is placed only once the network is proven there again.
 *   <li>The same network with a node slice of six addresses: of seven pods asking for it, six run
 *       and the seventh is Pending, not ContainerCreating, with an Event naming the network; a pod
 *       with the annotation alone, as today, is placed there and fails to start for want of an
 *       address.
 * </ul>
 *
 * <p>Prints the figures of docs/benchmarks.md's placement section ({@code event=placement-...}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetworkClaimsE2E {
  private static final Duration SETTLE = Duration.ofSeconds(150);
  private static final String POD_NETWORK = "claimed";
  private static final String POD_NETWORK_FILE = "10-" + POD_NETWORK + ".conflist";

  /** The Multus network proven on two nodes, failing on the third. */
  private static final String LAN = "lan";

  /** The Multus network of one node, with a slice of six addresses. */
  private static final String SIX = "six";

  private static final String MULTUS_NETWORKS = "k8s.v1.cni.cncf.io/networks";
  private static final int PODS_PER_WAY = 6;

  private final long started = System.nanoTime();
  private KubeletCluster cluster;
  private LocalControlPlane cp;
  private ChartRelease release;
  private ThinMultus multus;
  private String apps;

  /** The node where {@link #LAN} fails: its uplink label names a link it does not have. */
  private KubeletNode failing;

  /** The node that alone holds {@link #SIX}. */
  private KubeletNode sixNode;

  @BeforeAll
  void install() throws Exception {
    cluster = KubeletCluster.start(3);
    cp = cluster.controlPlane();
    PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
    multus = ThinMultus.prepare(cluster, POD_NETWORK_FILE);
    release = ChartRelease.install(cp, product, "claims", ChartRelease.onNodes(cluster));
    ClusterNetworks networks = ClusterNetworks.on(cp);
    networks.apply(
        ClusterNetworks.podNetwork(
            POD_NETWORK, "cbclaim0", "scheduling: {publishDevices: true}", ""));
    release.awaitProductRollout(cluster, OneNodeProduct.INSTALL_WAIT);
    for (KubeletNode node : cluster.nodes()) {
      await("the pod network's file on " + node.name())
          .atMost(Duration.ofSeconds(60))
          .until(() -> Files.exists(node.cniConfDir().resolve(POD_NETWORK_FILE)));
    }
    multus.install();
    networks.waitReady(POD_NETWORK);
    apps = NodePods.appsNamespace(cp.client());
    failing = cluster.nodes().get(2);
    sixNode = cluster.nodes().get(0);
    failing.label(ThinMultus.UPLINK_LABEL, "enp9s9");
  }

  @AfterAll
  void uninstall() {
    Teardown.closeAll(
        () -> {
          if (multus != null) {
            multus.keepLogs(Path.of("target/it-logs/network-claims-e2e").toAbsolutePath());
          }
        },
        release,
        cluster,
        multus);
    System.out.printf("event=claims-e2e total_ms=%d%n", (System.nanoTime() - started) / 1_000_000);
  }

  private KubernetesClient client() {
    return cp.client();
  }

  private Optional<Device> device(String network, KubeletNode node) {
    return client().resources(ResourceSlice.class).list().getItems().stream()
        .filter(s -> NetworkDevices.DRIVER.equals(s.getSpec().getDriver()))
        .filter(s -> node.name().equals(s.getSpec().getNodeName()))
        .flatMap(s -> s.getSpec().getDevices().stream())
        .filter(d -> network.equals(d.getName()))
        .findFirst();
  }

  private static boolean tainted(Device d) {
    return d.getTaints() != null && !d.getTaints().isEmpty();
  }

  private static String taint(Optional<Device> d) {
    return d.filter(NetworkClaimsE2E::tainted).map(x -> x.getTaints().get(0).getValue()).orElse("");
  }

  private Device awaitProven(String network, KubeletNode node) {
    return await(network + "'s device on " + node.name() + ", proven")
        .atMost(SETTLE)
        .until(() -> device(network, node), d -> d.isPresent() && !tainted(d.get()))
        .get();
  }

  /** The extended resource of {@code network}: one of it asks for the network. */
  private static Map<String, Quantity> asking(String network) {
    return Map.of(NetworkDevices.DRIVER + "/" + network, new Quantity("1"));
  }

  /** A pause pod's spec, asking for {@code limits}. */
  private PodSpec podSpec(Map<String, Quantity> limits) {
    return new PodSpecBuilder()
        .withTerminationGracePeriodSeconds(0L)
        .withContainers(
            new ContainerBuilder(NodePods.pauseContainer(cluster.nodes().get(0)))
                .withNewResources()
                .withLimits(limits)
                .endResources()
                .build())
        .build();
  }

  private Pod pod(String name, String multusNetwork, Map<String, Quantity> limits) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(apps)
        .withAnnotations(multusNetwork == null ? Map.of() : Map.of(MULTUS_NETWORKS, multusNetwork))
        .endMetadata()
        .withSpec(podSpec(limits))
        .build();
  }

  /**
   * A Deployment {@code name} of {@code replicas} pause pods annotated for Multus's {@code
   * multusNetwork}, asking for {@code limits}; no spread constraint of its own, so the scheduler
   * places them by its defaults.
   */
  private Deployment deployment(
      String name, int replicas, String multusNetwork, Map<String, Quantity> limits) {
    return NodePods.deployment(
        name, replicas, Map.of(MULTUS_NETWORKS, multusNetwork), podSpec(limits));
  }

  private List<Pod> podsOf(String app) {
    return client().pods().inNamespace(apps).withLabel("app", app).list().getItems();
  }

  private ResourceClaim claim(String name) {
    return client()
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(apps)
        .withName(name)
        .get();
  }

  private Pod awaitRunning(String name) {
    return await(name + " running")
        .atMost(SETTLE)
        .until(
            () -> client().pods().inNamespace(apps).withName(name).get(),
            p -> p != null && NodePods.running(p));
  }

  private Optional<Event> event(String pod, String reason, String containing) {
    return client().v1().events().inNamespace(apps).list().getItems().stream()
        .filter(e -> pod.equals(e.getInvolvedObject().getName()))
        .filter(e -> reason.equals(e.getReason()))
        .filter(e -> e.getMessage().contains(containing))
        .findFirst();
  }

  private Event awaitEvent(String pod, String reason, String containing) {
    return await(reason + " on " + pod)
        .atMost(SETTLE)
        .until(() -> event(pod, reason, containing), Optional::isPresent)
        .get();
  }

  private static Map<String, Long> countByNode(List<Pod> pods) {
    return pods.stream()
        .collect(
            Collectors.groupingBy(
                p -> Optional.ofNullable(p.getSpec().getNodeName()).orElse("(none)"),
                TreeMap::new,
                Collectors.counting()));
  }

  @Test
  @Order(1)
  void aPodAskingForThePublishedNetworkByItsExtendedResourceIsPlacedPreparedAndRuns() {
    for (KubeletNode node : cluster.nodes()) {
      Device device = awaitProven(POD_NETWORK, node);
      assertThat(device.getAllowMultipleAllocations()).isTrue();
      assertThat(device.getCapacity()).containsKey(NetworkDevices.CAPACITY_ADDRESSES);
    }
    assertThat(
            client()
                .dynamicResourceAllocation()
                .v1()
                .deviceClasses()
                .withName(POD_NETWORK + "." + NetworkDevices.DRIVER)
                .get())
        .isNotNull();

    client().resource(pod("by-resource", null, asking(POD_NETWORK))).create();
    Pod running = awaitRunning("by-resource");
    String nodeName = running.getSpec().getNodeName();
    // The scheduler made the pod's claim and allocated its node's device of the network to it.
    String claimName = running.getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
    ResourceClaim claim = claim(claimName);
    assertThat(claim.getStatus().getAllocation().getDevices().getResults())
        .extracting(
            DeviceRequestAllocationResult::getDriver,
            DeviceRequestAllocationResult::getPool,
            DeviceRequestAllocationResult::getDevice)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(NetworkDevices.DRIVER, nodeName, POD_NETWORK));
    // And the agent, with the chart's permissions (its pod's token, bound to the node), says in
    // the claim where the pod is on the network.
    AllocatedDeviceStatus where =
        await("the claim's device status")
            .atMost(SETTLE)
            .until(
                () ->
                    Optional.ofNullable(claim(claimName).getStatus().getDevices())
                        .flatMap(d -> d.stream().findFirst()),
                Optional::isPresent)
            .get();
    assertThat(where.getDevice()).isEqualTo(POD_NETWORK);
    assertThat(where.getNetworkData().getInterfaceName()).isEqualTo("eth0");
    assertThat(where.getNetworkData().getIps())
        .anyMatch(ip -> ip.startsWith(running.getStatus().getPodIP() + "/"));
    assertThat(where.getNetworkData().getHardwareAddress()).matches("([0-9a-f]{2}:){5}[0-9a-f]{2}");
  }

  @Test
  @Order(2)
  void aPodAskingForItByAResourceClaimRunsToo() {
    client()
        .resource(
            new ResourceClaimTemplateBuilder()
                .withNewMetadata()
                .withName(POD_NETWORK)
                .withNamespace(apps)
                .endMetadata()
                .withNewSpec()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("network")
                .withNewExactly()
                .withDeviceClassName(POD_NETWORK + "." + NetworkDevices.DRIVER)
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .endSpec()
                .build())
        .create();
    Pod pod = pod("by-claim", null, Map.of());
    pod.getSpec()
        .setResourceClaims(
            List.of(
                new PodResourceClaimBuilder()
                    .withName("network")
                    .withResourceClaimTemplateName(POD_NETWORK)
                    .build()));
    pod.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .setClaims(List.of(new ResourceClaimBuilder().withName("network").build()));
    client().resource(pod).create();
    assertThat(awaitRunning("by-claim").getSpec().getNodeName()).isNotNull();
  }

  /**
   * The figure of issue 55: pods placed on a node where their network fails, without asking for it
   * (today) and asking for it (published), measured in one run on the same nodes.
   */
  @Test
  @Order(3)
  void podsAskingForANetworkLandOnlyWhereItIsProvenWhilePodsThatDoNotLandWhereItFails() {
    ClusterNetworks.on(cp)
        .apply(
            ThinMultus.macvlanNetwork(LAN, 50, apps, "10.234.0.0/24", "")
                .replace("spec:\n", "spec:\n  scheduling: {publishDevices: true}\n"));
    for (KubeletNode node : cluster.nodes()) {
      if (node != failing) {
        awaitProven(LAN, node);
      }
    }
    Optional<Device> onFailing =
        await(LAN + "'s device on " + failing.name() + ", tainted ProbeFailed")
            .atMost(SETTLE)
            .until(() -> device(LAN, failing), d -> "ProbeFailed".equals(taint(d)));
    assertThat(onFailing.get().getTaints().get(0).getKey())
        .isEqualTo(NetworkDevices.TAINT_NOT_PROVEN);
    assertThat(onFailing.get().getTaints().get(0).getEffect()).isEqualTo("NoSchedule");

    // Today's way, and the published way, at once on the same three nodes.
    client()
        .apps()
        .deployments()
        .inNamespace(apps)
        .resource(deployment("today", PODS_PER_WAY, LAN, Map.of()))
        .create();
    client()
        .apps()
        .deployments()
        .inNamespace(apps)
        .resource(deployment("asking", PODS_PER_WAY, LAN, asking(LAN)))
        .create();
    List<Pod> asking =
        await("the pods asking for " + LAN + " running")
            .atMost(SETTLE)
            .until(
                () -> podsOf("asking"),
                pods -> pods.size() == PODS_PER_WAY && pods.stream().allMatch(NodePods::running));
    List<Pod> today =
        await("the pods not asking for " + LAN + " placed")
            .atMost(SETTLE)
            .until(
                () -> podsOf("today"),
                pods ->
                    pods.size() == PODS_PER_WAY
                        && pods.stream().allMatch(p -> p.getSpec().getNodeName() != null));
    Map<String, Long> todayByNode = countByNode(today);
    Map<String, Long> askingByNode = countByNode(asking);
    long todayOnFailing = todayByNode.getOrDefault(failing.name(), 0L);
    long todayStuck =
        await("the pods not asking, on " + failing.name() + ", failing to start")
            .atMost(SETTLE)
            .until(
                () ->
                    podsOf("today").stream()
                        .filter(p -> failing.name().equals(p.getSpec().getNodeName()))
                        .filter(p -> event(name(p), "FailedCreatePodSandBox", "").isPresent())
                        .count(),
                n -> n == todayOnFailing);
    System.out.printf(
        "event=placement-failing-node network=%s failing_node=%s pods_per_way=%d"
            + " today_on_failing=%d today_stuck=%d today_by_node=%s asking_on_failing=%d"
            + " asking_by_node=%s asking_running=%d%n",
        LAN,
        failing.name(),
        PODS_PER_WAY,
        todayOnFailing,
        todayStuck,
        todayByNode,
        askingByNode.getOrDefault(failing.name(), 0L),
        askingByNode,
        asking.stream().filter(NodePods::running).count());
    assertThat(askingByNode).doesNotContainKey(failing.name());
    assertThat(todayOnFailing)
        .as("today's pods the scheduler put on %s (%s)", failing.name(), todayByNode)
        .isPositive();
    for (Pod p : podsOf("today")) {
      if (failing.name().equals(p.getSpec().getNodeName())) {
        assertThat(NodePods.running(p)).as("%s on the failing node", name(p)).isFalse();
      }
    }

    // A pod asking for it that may only go to the failing node: Pending, and why.
    Pod pinned = pod("pinned", LAN, asking(LAN));
    pinned.getSpec().setNodeSelector(Map.of("kubernetes.io/hostname", failing.name()));
    client().resource(pinned).create();
    Event why = awaitEvent("pinned", "NetworkUnschedulable", "(ProbeFailed)");
    System.out.printf("event=placement-pinned message=\"%s\"%n", why.getMessage());
    assertThat(why.getType()).isEqualTo("Warning");
    assertThat(why.getMessage())
        .startsWith("network " + LAN + ": not proven on " + failing.name() + " (ProbeFailed)");
    Pod pending = client().pods().inNamespace(apps).withName("pinned").get();
    assertThat(pending.getSpec().getNodeName()).isNull();
    assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");

    for (String app : List.of("today", "asking")) {
      client().apps().deployments().inNamespace(apps).withName(app).delete();
    }
    client().pods().inNamespace(apps).withName("pinned").withGracePeriod(0).delete();
  }

  private String sixYaml(String macvlanLines) {
    return ThinMultus.macvlanNetwork(SIX, 55, apps, "10.235.0.0/24", macvlanLines)
        .replace("prefixLength: 26", "prefixLength: 29")
        .replace(
            "spec:\n",
            "spec:\n  scheduling: {publishDevices: true}\n  nodeSelector: {matchLabels:"
                + " {kubernetes.io/hostname: "
                + sixNode.name()
                + "}}\n");
  }

  /**
   * A broken edit rolled back on the canary (the one node holding the network): the device is
   * tainted from the edit until the stable revision is proven there again, and a pod asking for the
   * network all that time is placed only after.
   */
  @Test
  @Order(4)
  void aPodAskingForANetworkRolledBackOnTheCanaryIsPlacedOnlyOnceItIsProvenAgain()
      throws Exception {
    ClusterNetworks networks = ClusterNetworks.on(cp);
    networks.apply(sixYaml(""));
    Device proven = awaitProven(SIX, sixNode);
    // The node's slice of 10.235.0.0/24 is the first /29: host-local skips the subnet's address
    // and its default gateway, .1, so six are left.
    assertThat(proven.getCapacity().get(NetworkDevices.CAPACITY_ADDRESSES).getValue())
        .isEqualTo(new Quantity("6"));
    for (KubeletNode node : cluster.nodes()) {
      if (node != sixNode) {
        assertThat(device(SIX, node)).as("%s on %s", SIX, node.name()).isEmpty();
      }
    }

    networks.apply(sixYaml("      mtu: 70000\n"));
    long edited = System.nanoTime();
    await(SIX + " tainted for the edit")
        .atMost(SETTLE)
        .until(() -> device(SIX, sixNode), NetworkClaimsE2E::isTainted);
    client().resource(pod("during-rollback", SIX, asking(SIX))).create();

    long created = System.nanoTime();

    // Until the pod is placed, every look at the pod and then at the device: a pod placed while
    // the device was tainted fails (once gone, the taint does not come back in this scenario).
    List<String> taintsSeen = new ArrayList<>();
    long untaintedSeen = 0;
    String placedOn = null;
    long deadline = created + SETTLE.toNanos();
    while (placedOn == null) {
      assertThat(System.nanoTime()).as("the pod placed in time").isLessThan(deadline);
      Pod p = client().pods().inNamespace(apps).withName("during-rollback").get();
      String t = taint(device(SIX, sixNode));
      if (!t.isEmpty()
          && (taintsSeen.isEmpty() || !taintsSeen.get(taintsSeen.size() - 1).equals(t))) {
        taintsSeen.add(t);
      }
      if (t.isEmpty() && untaintedSeen == 0) {
        untaintedSeen = System.nanoTime();
      }
      if (p.getSpec().getNodeName() != null) {
        assertThat(t).as("the taint when the pod was seen placed").isEmpty();
        placedOn = p.getSpec().getNodeName();
      }
      Thread.sleep(100);
    }
    long placed = System.nanoTime();
    RolloutStatus rollout = network(SIX).getStatus().getRollout();
    System.out.printf(
        "event=placement-rollback network=%s canary=%s phase=%s taints_seen=%s"
            + " edit_to_proven_again_ms=%d pod_waited_ms=%d%n",
        SIX,
        sixNode.name(),
        rollout.getPhase(),
        taintsSeen,
        (untaintedSeen - edited) / 1_000_000,
        (placed - created) / 1_000_000);
    assertThat(rollout.getPhase()).isEqualTo(RolloutPhase.RolledBack);
    assertThat(rollout.getFailure().getNode()).isEqualTo(sixNode.name());
    assertThat(placedOn).isEqualTo(sixNode.name());
    assertThat(taintsSeen).as("the device was tainted while the pod waited").isNotEmpty();
    awaitRunning("during-rollback");
    // The stable spec again: the revision the node holds, nothing to roll out.
    networks.apply(sixYaml(""));
    networks.waitRolledOut(SIX);
  }

  private static boolean isTainted(Optional<Device> d) {
    return d.isPresent() && tainted(d.get());
  }

  /**
   * Six addresses on the only node of the network, one held by the pod of the previous scenario:
   * six more pods asking for it, the sixth of them, the seventh in all, Pending and named.
   */
  @Test
  @Order(5)
  void theSeventhPodAskingForANetworkOfSixAddressesIsPendingWithAnEventNamingIt() {
    assertThat(
            NodePods.running(client().pods().inNamespace(apps).withName("during-rollback").get()))
        .isTrue();
    client()
        .apps()
        .deployments()
        .inNamespace(apps)
        .resource(deployment("sixes", 6, SIX, asking(SIX)))
        .create();
    List<Pod> sixes =
        await("five of six running, one Pending")
            .atMost(SETTLE)
            .until(
                () -> podsOf("sixes"),
                pods ->
                    pods.stream().filter(NodePods::running).count() == 5
                        && pods.stream().filter(p -> p.getSpec().getNodeName() == null).count()
                            == 1);
    Pod seventh =
        sixes.stream().filter(p -> p.getSpec().getNodeName() == null).findFirst().orElseThrow();
    Event why = awaitEvent(name(seventh), "NetworkUnschedulable", "(6 claimed of 6)");
    assertThat(why.getMessage())
        .isEqualTo(
            "network " + SIX + ": no address left on " + sixNode.name() + " (6 claimed of 6)");
    System.out.printf(
        "event=placement-six network=%s node=%s running=%d pending=%d message=\"%s\"%n",
        SIX,
        sixNode.name(),
        sixes.stream().filter(NodePods::running).count() + 1,
        1,
        why.getMessage());
    assertThat(why.getType()).isEqualTo("Warning");
    // Every address of the node's slice is a running pod's: none handed out twice, none spare.
    Set<String> addresses = new TreeSet<>(ThinMultus.reservations(sixNode, SIX));
    assertThat(addresses).hasSize(6);
    List<Pod> all = new ArrayList<>(podsOf("sixes"));
    all.add(client().pods().inNamespace(apps).withName("during-rollback").get());
    Map<String, String> byPod = new HashMap<>();
    for (Pod p : all) {
      if (NodePods.running(p)) {
        byPod.put(name(p), ThinMultus.address(p, "net1"));
      }
    }
    assertThat(new TreeSet<>(byPod.values())).isEqualTo(addresses);
    Pod still = client().pods().inNamespace(apps).withName(name(seventh)).get();
    assertThat(still.getSpec().getNodeName()).as("the seventh, still not placed").isNull();
    assertThat(still.getStatus().getPhase()).isEqualTo("Pending");

    // Today's way, for the same node: a pod with the annotation alone is placed there, and waits.
    Pod today = pod("six-today", SIX, Map.of());
    today.getSpec().setNodeSelector(Map.of("kubernetes.io/hostname", sixNode.name()));
    client().resource(today).create();
    Event stuck = awaitEvent("six-today", "FailedCreatePodSandBox", "no IP addresses available");
    System.out.printf(
        "event=placement-six-today node=%s phase=%s message=\"%s\"%n",
        sixNode.name(),
        client().pods().inNamespace(apps).withName("six-today").get().getStatus().getPhase(),
        stuck.getMessage());
    client().pods().inNamespace(apps).withName("six-today").withGracePeriod(0).delete();
  }

  private CniNetwork network(String name) {
    return client().resources(CniNetwork.class).withName(name).get();
  }

  private static String name(Pod p) {
    return p.getMetadata().getName();
  }
}
