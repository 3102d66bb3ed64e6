package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.operator.OperatorSettings;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The product as its users run it, on two real nodes ({@link KubeletCluster}: a kubelet and a
 * containerd each, no kube-proxy): the images the test command built, pushed with the chart to a
 * registry by {@code bin/publish}, {@code helm install oci://...} of that chart (the nodes pull the
 * images by digest), and pods networked by conflists the agent wrote.
 *
 * <p>Bootstrap: the Nodes start NotReady (no CNI configuration); the operator (hostNetwork,
 * tolerating not-ready nodes) and the agents start and reach the API server through the {@code
 * apiServer} values, since no Service routing exists; one bridge network, whose host-local range is
 * each node's own podCIDR ({@code $(node.hostLocalRanges)}), makes both Nodes Ready; pause pods
 * spread over the nodes get addresses from their own node's podCIDR and pods on one node reach each
 * other. The set-up makes that state once (a failure there is the set-up's, not every test's); the
 * Bootstrap test asserts it, and the scenarios after it run in order on what it left running:
 *
 * <ul>
 *   <li>CHECK: every node's CniNode counts its running pods' attachments, all healthy; flushing one
 *       pod's addresses makes the CniNetwork Degraded naming the node and the pod, with an Event
 *       {@code CniCheckFailed} on the pod.
 *   <li>Cleanup: one node's containerd loses its pods' sandboxes (killed behind its back, then
 *       SIGKILLed and restarted); the kubelet recreates them, and after the grace period the agent
 *       has released exactly the lost pods' host-local reservations and no running pod's.
 *   <li>Upgrade: {@code helm upgrade} to a new agent image tag rolls the DaemonSet; the pod
 *       network's conflist never leaves either node and the pods keep their network.
 *   <li>Failover: deleting the operator replica that holds the Lease hands it to the other one, and
 *       a Node label set right after still brings a network to that node.
 *   <li>Uninstall: {@code helm uninstall} removes the product's workloads and leaves the conflists,
 *       so a new pod still starts, and no Multus dir was ever made on the nodes.
 * </ul>
 *
 * <p>Each phase's duration is printed ({@code event=cluster-e2e}); nothing here asserts a time.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterE2E {
  private static final Duration ROLLOUT = Duration.ofMinutes(4);

  /** Each node's bridge; no other test uses this name. */
  private static final String BRIDGE = "cbboot0";

  /** The pod network: a short CHECK interval and cleanup grace period, so both show here. */
  private static final String NETWORK_NAME = "boot";

  private static final String NETWORK_FILE = "10-" + NETWORK_NAME + ".conflist";
  private static final String FAILOVER_LABEL = "e2e.cnioperator.dev/failover";

  private static final Map<String, Long> phases = new LinkedHashMap<>();
  private static long started;
  private static long phaseStart;
  private static KubeletCluster cluster;
  private static LocalControlPlane cp;
  private static ChartRelease release;
  private static PublishedProduct product;
  private static String apps;

  /** Each Node's podCIDR, read once the chart was installed. */
  private static final Map<String, String> podCidrs = new LinkedHashMap<>();

  /** The Deployment's pods as they first ran. */
  private static List<Pod> bootPods;

  /**
   * Why the Nodes were not NotReady for want of a conflist before the install, if they were not.
   */
  private static AssertionError notReadyBeforeInstall;

  @BeforeAll
  static void startCluster() {
    started = System.nanoTime();
    phaseStart = started;
    cluster = KubeletCluster.start(2);
    cp = cluster.controlPlane();
    phase("cluster-start");
    product = PublishedProduct.publish(cluster, Helm.provisioned());
    phase("publish");
    bootstrap();
  }

  /**
   * What every test starts from, made once here so that a failure in it is the set-up's, reported
   * as such, and no test fails for another's: the chart installed with the pod network applied,
   * every Node Ready, and four pods of a Deployment running in {@link #apps}. What the Bootstrap
   * test asserts about it is recorded for that test.
   */
  private static void bootstrap() {
    KubernetesClient client = cp.client();
    try {
      awaitEveryNodesReadyCondition(
          "before any conflist",
          c -> assertThat(c.getMessage()).contains("cni plugin not initialized"));
    } catch (ConditionTimeoutException e) {
      notReadyBeforeInstall = new AssertionError(e.getMessage(), e);
    }
    phaseStart = System.nanoTime();

    release = ChartRelease.install(cp, product, "boot", installValues());
    phase("helm-install");
    for (KubeletNode node : cluster.nodes()) {
      podCidrs.put(node.name(), client.nodes().withName(node.name()).get().getSpec().getPodCIDR());
    }
    // One network for the whole cluster; each node's range is its own podCIDR.
    cp.kubectlWithInput(NETWORK, "apply", "-f", "-").orThrow("kubectl apply of the pod network");
    // The agent is ready once its node's conflists are written, so the networks come first.
    release.awaitProductRollout(cluster, ROLLOUT);
    phase("rollout");
    awaitEveryNodesReadyCondition(
        "after its network was applied", c -> assertThat(c.getStatus()).isEqualTo("True"));
    phase("nodes-ready");
    // Which releases ran: the matrix's skew step runs kubelets older than the API server.
    System.out.printf(
        "event=cluster-e2e-releases apiServer=%s kubelets=%s%n",
        cp.serverVersion(),
        cluster.nodes().stream()
            .map(
                n ->
                    client
                        .nodes()
                        .withName(n.name())
                        .get()
                        .getStatus()
                        .getNodeInfo()
                        .getKubeletVersion())
            .toList());

    apps = NodePods.startPausePods(client, 4);
    bootPods = awaitRunningPods(client, 4);
    phase("pods-running");
  }

  /**
   * Copies every container log on every node into {@code target/it-logs/cluster-e2e/<node>/} after
   * each test, over the copies of the test before: a pod's log stays readable after the run even
   * when a later test deletes the pod (its log goes with it) or the run removes the nodes' roots.
   */
  @AfterEach
  void keepPodLogs() {
    PodLogs.keep(cluster, Path.of("target/it-logs/cluster-e2e").toAbsolutePath());
  }

  @AfterAll
  static void stopCluster() {
    try {
      if (release != null) {
        release.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
      phase("cleanup");
      System.out.printf(
          "event=cluster-e2e phases=%s total_ms=%d%n",
          phases, (System.nanoTime() - started) / 1_000_000);
    }
  }

  @Test
  @Order(1)
  void bootstrapHelmInstallMakesNotReadyNodesReadyAndPodsGetTheirNodesPodCidr() {
    if (notReadyBeforeInstall != null) {
      throw notReadyBeforeInstall;
    }
    for (Map.Entry<String, String> node : podCidrs.entrySet()) {
      assertThat(node.getValue())
          .as("podCIDR of %s", node.getKey())
          .startsWith("10.232.")
          .endsWith("/24");
    }
    for (KubeletNode node : cluster.nodes()) {
      assertThat(NodePods.confFiles(node)).as("conf dir of %s", node.name()).hasSize(1);
    }
    Map<String, List<Pod>> byNode =
        bootPods.stream().collect(Collectors.groupingBy(p -> p.getSpec().getNodeName()));
    assertThat(byNode.keySet()).containsExactlyInAnyOrderElementsOf(podCidrs.keySet());
    for (Pod pod : bootPods) {
      String cidr = podCidrs.get(pod.getSpec().getNodeName());
      assertThat(pod.getStatus().getPodIP())
          .as("IP of %s on %s (podCIDR %s)", name(pod), pod.getSpec().getNodeName(), cidr)
          .startsWith(cidr.substring(0, cidr.lastIndexOf('.') + 1));
    }
    for (KubeletNode node : cluster.nodes()) {
      List<Pod> onNode = byNode.get(node.name());
      assertThat(onNode).as("pods on %s", node.name()).hasSize(2);
      assertThat(NodePods.tcpAnswer(node, onNode.get(0), onNode.get(1)))
          .as("TCP from %s to %s on %s", name(onNode.get(0)), name(onNode.get(1)), node.name())
          .isEqualTo("pong");
    }
    phase("pod-to-pod");
  }

  @Test
  @Order(2)
  void checkCountsTheKubeletsPodsHealthyAndABrokenInterfaceDegradesTheNetworkNamingNodeAndPod() {
    KubernetesClient client = cp.client();
    phaseStart = System.nanoTime();
    awaitAttachmentsHealthyAsRunningPods(client);
    phase("check-healthy");

    KubeletNode node = cluster.nodes().get(0);
    Pod broken = runningPodsOn(client, node).get(0);
    NodePods.inPodNetwork(node, broken, "ip", "addr", "flush", "dev", "eth0")
        .orThrow("ip addr flush dev eth0 in " + name(broken));
    await("Degraded naming " + node.name() + " and " + name(broken))
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              Condition degraded = condition(network(client), "Degraded");
              assertThat(degraded.getStatus()).isEqualTo("True");
              assertThat(degraded.getMessage())
                  .contains(node.name())
                  .contains("pod " + apps + "/" + name(broken));
            });
    await("Event CniCheckFailed on " + name(broken))
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                client.v1().events().inNamespace(apps).list().getItems().stream()
                    .anyMatch(
                        e ->
                            "CniCheckFailed".equals(e.getReason())
                                && name(broken).equals(e.getInvolvedObject().getName())));
    phase("check-degraded");

    client.pods().inNamespace(apps).withName(name(broken)).withGracePeriod(0).delete();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> client.pods().inNamespace(apps).withName(name(broken)).get() == null);
    awaitRunningPods(client, 4);
    awaitAttachmentsHealthyAsRunningPods(client);
    phase("check-recovered");
  }

  @Test
  @Order(3)
  void afterContainerdLostPodsTheAgentReleasesExactlyTheirReservationsAndNoRunningPodsIp() {
    KubernetesClient client = cp.client();
    KubeletNode node = cluster.nodes().get(1);
    awaitAttachmentsHealthyAsRunningPods(client);
    List<Pod> lost = runningPodsOn(client, node);
    Set<String> lostIps = podIps(lost);
    assertThat(NodePods.reservations(node, NETWORK_NAME))
        .as("host-local's reservations on %s before the crash", node.name())
        .isEqualTo(lostIps);
    phaseStart = System.nanoTime();

    // Each sandbox is killed behind containerd's back, then containerd is SIGKILLed and started
    // again: it no longer knows the sandbox, and no DEL ever ran for it.
    // The kubelet is frozen meanwhile: it would otherwise see a sandbox die before containerd
    // forgets it and stop it properly, and containerd's teardown would run the DEL.
    List<String> sandboxes = lost.stream().map(p -> NodePods.sandboxId(node, p)).toList();
    node.withKubeletFrozen(() -> sandboxes.forEach(id -> node.containerd().loseSandbox(id)));
    // Checked at once: the grace period (30 s) counts from when the agent first sees them stale.
    assertThat(NodePods.reservations(node, NETWORK_NAME))
        .as("the lost pods' reservations outlive their sandboxes: no DEL ran")
        .containsAll(lostIps);
    phase("containerd-lost-sandboxes");
    await("the kubelet recreates the sandboxes of the lost pods on " + node.name())
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(
            () -> {
              List<Pod> now = runningPodsOn(client, node);
              assertThat(now).hasSameSizeAs(lost);
              assertThat(podIps(now)).doesNotContainAnyElementsOf(lostIps);
            });
    Set<String> recreated = podIps(runningPodsOn(client, node));
    assertThat(NodePods.reservations(node, NETWORK_NAME))
        .as("the recreated pods' reservations")
        .containsAll(recreated);
    phase("pods-recreated");

    await("the agent releases the lost reservations after the grace period")
        .atMost(Duration.ofSeconds(150))
        .untilAsserted(
            () ->
                assertThat(NodePods.reservations(node, NETWORK_NAME))
                    .as("reservations on %s", node.name())
                    .isEqualTo(podIps(runningPodsOn(client, node))));
    assertThat(podIps(runningPodsOn(client, node))).isEqualTo(recreated);
    for (KubeletNode n : cluster.nodes()) {
      assertThat(NodePods.reservations(n, NETWORK_NAME))
          .as("reservations on %s: every running pod's IP, nothing else", n.name())
          .isEqualTo(podIps(runningPodsOn(client, n)));
    }
    // The agent reports the releases in its next status write, after the files went.
    await("the CniNode status of " + node.name() + " counts the released reservations")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(nodeNetwork(client, node).getIpam().getReclaimed())
                    .as(
                        () ->
                            "reservations the agent on "
                                + node.name()
                                + " released; logs:\n"
                                + PodLogs.tails(cluster, release.namespace()))
                    .isEqualTo(lost.size()));
    awaitAttachmentsHealthyAsRunningPods(client);
    phase("stale-released");
  }

  @Test
  @Order(4)
  void helmUpgradeOfTheAgentImageRollsTheDaemonSetWithoutAConflistGoingOrAPodLosingItsNetwork()
      throws InterruptedException {
    KubernetesClient client = cp.client();
    // A new tag of the agent in the registry, as a release would push: the nodes pull it.
    String tag = "upgraded";
    String upgraded = product.agentRepository() + ":" + tag;
    Commands.run(
            "skopeo",
            "copy",
            "--quiet",
            "--src-tls-verify=false",
            "--dest-tls-verify=false",
            "docker://" + product.agentRepository() + ":" + product.version(),
            "docker://" + upgraded)
        .orThrow("skopeo copy of the agent to the tag " + tag);
    Map<String, List<Pod>> before = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      before.put(node.name(), runningPodsOn(client, node));
    }
    phaseStart = System.nanoTime();

    ConflistWatch watch = ConflistWatch.start(cluster.nodes(), NETWORK_FILE);
    try {
      CommandResult upgrade =
          release.upgrade(
              "--reuse-values",
              "--set-string",
              "agent.image.tag=" + tag,
              "--set-string",
              "agent.image.digest=");
      assertThat(upgrade.exitCode()).as("helm upgrade: %s", upgrade.stderr()).isZero();
      release.awaitRollout(cluster, "daemonset/" + release.name() + "-cni-operator-agent", ROLLOUT);
    } finally {
      watch.stop();
    }
    phase("upgrade-rollout");
    assertThat(watch.misses())
        .as("moments a node had no %s during the roll", NETWORK_FILE)
        .isEmpty();
    assertThat(watch.reads()).as("reads of the conf dirs during the roll").isGreaterThan(10);
    List<Pod> agents =
        client
            .pods()
            .inNamespace(release.namespace())
            .withLabel("app.kubernetes.io/component", "agent")
            .list()
            .getItems();
    assertThat(agents)
        .hasSize(cluster.nodes().size())
        .allSatisfy(
            p -> assertThat(p.getSpec().getContainers().get(0).getImage()).isEqualTo(upgraded));
    for (KubeletNode node : cluster.nodes()) {
      List<Pod> onNode = before.get(node.name());
      assertThat(runningPodsOn(client, node))
          .as("the pods of %s went on running through the roll", node.name())
          .extracting(ClusterE2E::name)
          .containsExactlyInAnyOrderElementsOf(onNode.stream().map(ClusterE2E::name).toList());
      assertThat(NodePods.tcpAnswer(node, onNode.get(0), onNode.get(1)))
          .as(
              "TCP from %s to %s on %s after the roll",
              name(onNode.get(0)), name(onNode.get(1)), node.name())
          .isEqualTo("pong");
    }
    awaitAttachmentsHealthyAsRunningPods(client);
    phase("upgrade-pods-checked");
  }

  @Test
  @Order(5)
  void
      deletingTheLeaderHandsTheLeaseToALiveReplicaAndANodeLabelMadeRightAfterStillReachesTheNode() {
    KubernetesClient client = cp.client();
    String ns = release.namespace();
    List<Pod> operators = liveOperators(client, ns);
    assertThat(operators).as("operator replicas").hasSize(2);
    assertThat(operators.stream().map(p -> p.getSpec().getNodeName()).distinct())
        .as("the two hostNetwork replicas are on different nodes")
        .hasSize(2);
    String leader = leaseHolder(client);
    Pod leaderPod =
        operators.stream().filter(p -> name(p).equals(leader)).findFirst().orElseThrow();
    String survivor =
        operators.stream()
            .map(ClusterE2E::name)
            .filter(n -> !n.equals(leader))
            .findFirst()
            .orElseThrow();
    KubeletNode target =
        cluster.nodes().stream()
            .filter(n -> n.name().equals(leaderPod.getSpec().getNodeName()))
            .findFirst()
            .orElseThrow();
    cp.kubectlWithInput(FAILOVER_NETWORK, "apply", "-f", "-").orThrow("kubectl apply");
    await("the selective network is accepted")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              CniNetwork n = client.resources(CniNetwork.class).withName("failover").get();
              assertThat(condition(n, "Accepted").getStatus()).isEqualTo("True");
            });
    phaseStart = System.nanoTime();

    client.pods().inNamespace(ns).withName(leader).delete();
    target.label(FAILOVER_LABEL, "on");
    // The standby usually takes it at its next look, but the Deployment's replacement for the
    // deleted pod is a candidate too and may win the same race (a fresh-clone run saw the Lease
    // not go to the standby within 60 s): either is a live replica leading, which is what a
    // failover owes.
    await("the Lease goes to a live replica other than " + leader)
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(leaseHolder(client))
                    .as("the Lease's holder")
                    .isNotNull()
                    .isNotEqualTo(leader)
                    .isIn(liveOperators(client, ns).stream().map(ClusterE2E::name).toList()));
    System.out.printf(
        "event=failover deleted=%s holder=%s standby=%s%n", leader, leaseHolder(client), survivor);
    phase("failover-lease");
    await("90-failover.conflist on " + target.name())
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(NodePods.confFiles(target)).contains("90-failover.conflist"));
    phase("failover-node-update");
    for (KubeletNode n : cluster.nodes()) {
      if (n != target) {
        assertThat(NodePods.confFiles(n)).doesNotContain("90-failover.conflist");
      }
    }
    release.awaitRollout(
        cluster, "deployment/" + release.name() + "-cni-operator-operator", ROLLOUT);
    cp.kubectl("delete", "cninetwork", "failover", "--wait=true", "--timeout=90s")
        .orThrow("kubectl delete cninetwork failover");
    assertThat(NodePods.confFiles(target)).doesNotContain("90-failover.conflist");
    target.label(FAILOVER_LABEL, null);
    phase("failover-cleanup");
  }

  @Test
  @Order(6)
  void aBrokenEditIsRolledBackFromTheCanaryWhilePodsRunAndTheOtherNodeStillStartsPods() {
    KubernetesClient client = cp.client();
    awaitRolledOut();
    List<Pod> podsBefore = awaitRunningPods(client, 4);
    Map<String, byte[]> filesBefore = new LinkedHashMap<>();
    Map<String, Long> generations = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      filesBefore.put(node.name(), NodePods.confFile(node, NETWORK_FILE));
      generations.put(node.name(), cniNodeGeneration(client, node));
    }
    phaseStart = System.nanoTime();

    // Valid for the spec and the schema; no veth takes an MTU of 70000 (the bridge's ADD fails).
    String broken =
        ClusterNetworks.podNetwork(
            NETWORK_NAME, BRIDGE, "ipamCleanup: {gracePeriodSeconds: 30}", "mtu: 70000");
    assertThat(broken).isNotEqualTo(NETWORK);
    cp.kubectlWithInput(broken, "apply", "-f", "-").orThrow("kubectl apply of the broken edit");
    RolloutStatus rolledBack =
        await("the broken edit is rolled back")
            .atMost(Duration.ofSeconds(120))
            .until(
                () -> network(client).getStatus().getRollout(),
                r -> r != null && r.getPhase() == RolloutPhase.RolledBack);
    phase("rollback-detected");
    String canary = rolledBack.getFailure().getNode();
    System.out.printf(
        "event=cluster-rollback canary=%s failure=\"%s\"%n$ kubectl get cninetwork -o wide%n%s%n",
        canary,
        rolledBack.getFailure().getMessage(),
        cp.kubectl("get", "cninetwork", NETWORK_NAME, "-o", "wide").stdout());
    assertThat(rolledBack.getFailure().getMessage()).startsWith("ADD: ");
    assertThat(condition(network(client), "RolledOut").getMessage())
        .contains("node " + canary)
        .contains(rolledBack.getFailure().getMessage());

    KubeletNode canaryNode =
        cluster.nodes().stream().filter(n -> n.name().equals(canary)).findFirst().orElseThrow();
    await("the canary holds the stable conflist again, byte for byte")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(NodePods.confFile(canaryNode, NETWORK_FILE))
                    .isEqualTo(filesBefore.get(canary)));
    phase("rollback-applied");
    for (KubeletNode node : cluster.nodes()) {
      if (node != canaryNode) {
        assertThat(NodePods.confFile(node, NETWORK_FILE))
            .as("conflist of %s, which never got the edit", node.name())
            .isEqualTo(filesBefore.get(node.name()));
        assertThat(cniNodeGeneration(client, node))
            .as("the CniNode of %s was never written", node.name())
            .isEqualTo(generations.get(node.name()));
      }
    }
    // The pods on the network kept running, each with its address, and still reach each other.
    List<Pod> podsAfter = awaitRunningPods(client, 4);
    assertThat(podsAfter.stream().map(p -> p.getMetadata().getUid()))
        .containsExactlyInAnyOrderElementsOf(
            podsBefore.stream().map(p -> p.getMetadata().getUid()).toList());
    assertThat(podIps(podsAfter)).isEqualTo(podIps(podsBefore));
    for (KubeletNode node : cluster.nodes()) {
      List<Pod> onNode = runningPodsOn(client, node);
      assertThat(NodePods.tcpAnswer(node, onNode.get(0), onNode.get(1)))
          .as("TCP between the pods on %s after the rollback", node.name())
          .isEqualTo("pong");
    }
    // New pods still start on every node: the untouched one and the rolled-back canary.
    for (KubeletNode node : cluster.nodes()) {
      String pod = "after-rollback-" + node.name();
      client.pods().inNamespace(apps).resource(NodePods.pinnedPausePod(pod, node)).create();
      Pod running =
          await("a new pod on " + node.name())
              .atMost(Duration.ofSeconds(90))
              .until(
                  () -> client.pods().inNamespace(apps).withName(pod).get(),
                  p -> p != null && NodePods.running(p));
      assertThat(running.getStatus().getPodIP())
          .as("IP of %s", pod)
          .startsWith(
              client
                  .nodes()
                  .withName(node.name())
                  .get()
                  .getSpec()
                  .getPodCIDR()
                  .replaceAll("\\.0/24$", "."));
      client.pods().inNamespace(apps).withName(pod).withGracePeriod(0).delete();
    }
    phase("rollback-new-pods");

    // Back to the stable spec: nothing to roll out, every node already holds it.
    cp.kubectlWithInput(NETWORK, "apply", "-f", "-").orThrow("kubectl apply of the stable spec");
    awaitRolledOut();
    for (KubeletNode node : cluster.nodes()) {
      await("no pod of this scenario left on " + node.name())
          .atMost(Duration.ofSeconds(90))
          .until(() -> runningPodsOn(client, node).size() == 2);
    }
    phase("rollback-restored");
  }

  private static void awaitRolledOut() {
    ClusterNetworks.on(cp).waitRolledOut(NETWORK_NAME);
  }

  private static long cniNodeGeneration(KubernetesClient client, KubeletNode node) {
    return client
        .resources(CniNode.class)
        .withName(node.name())
        .get()
        .getMetadata()
        .getGeneration();
  }

  @Test
  @Order(7)
  void uninstallRemovesTheWorkloadsAndLeavesTheConflistsSoNewPodsStillStart() {
    KubernetesClient client = cp.client();
    Map<KubeletNode, List<String>> before = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      before.put(node, NodePods.confFiles(node));
    }
    phaseStart = System.nanoTime();

    CommandResult uninstall = release.uninstall();
    assertThat(uninstall.exitCode()).as("helm uninstall: %s", uninstall.stderr()).isZero();
    String ns = release.namespace();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(client.apps().daemonSets().inNamespace(ns).list().getItems()).isEmpty();
              assertThat(client.apps().deployments().inNamespace(ns).list().getItems()).isEmpty();
              assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
            });
    phase("uninstall");

    for (KubeletNode node : cluster.nodes()) {
      assertThat(NodePods.confFiles(node))
          .as("conflists on %s after helm uninstall", node.name())
          .containsExactlyElementsOf(before.get(node));
      assertThat(ready(client.nodes().withName(node.name()).get()).getStatus()).isEqualTo("True");
      // Issue 52: the product ran here without a Multus network, so it made no Multus dir.
      assertThat(node.hostPath("/etc/cni/multus")).as("on %s", node.name()).doesNotExist();
      assertThat(node.cniStateDir().resolve("multus")).as("on %s", node.name()).doesNotExist();
    }
    KubeletNode first = cluster.nodes().get(0);
    String cidr = client.nodes().withName(first.name()).get().getSpec().getPodCIDR();
    Pod late =
        client
            .pods()
            .inNamespace(apps)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("after-uninstall")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(first.name())
                    .withTerminationGracePeriodSeconds(0L)
                    .withContainers(NodePods.pauseContainer())
                    .endSpec()
                    .build())
            .create();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> NodePods.running(client.pods().inNamespace(apps).withName(name(late)).get()));
    assertThat(client.pods().inNamespace(apps).withName(name(late)).get().getStatus().getPodIP())
        .startsWith(cidr.substring(0, cidr.lastIndexOf('.') + 1));
    assertThat(
            client.pods().inNamespace(apps).withLabel("app", "pause").list().getItems().stream()
                .filter(NodePods::running))
        .as("the Deployment's pods keep running")
        .hasSize(4);
    phase("pod-after-uninstall");
  }

  @Test
  @Order(8)
  void withRemoveConflistsOnUninstallTheHookJobTakesTheNetworkOffEveryNodeBeforeTheReleaseGoes() {
    KubernetesClient client = cp.client();
    phaseStart = System.nanoTime();
    release.close();
    List<String> values = new ArrayList<>(List.of(installValues()));
    values.addAll(
        List.of(
            "--set",
            "agent.removeConflistsOnUninstall=true",
            "--set",
            "agent.removeConflistsTimeoutSeconds=120"));
    release = ChartRelease.install(cp, product, "rm", values.toArray(String[]::new));
    release.awaitProductRollout(cluster, ROLLOUT);
    // The new agents adopt the files the old ones wrote (their manifest is in each node's state
    // dir), and the network is Ready again under the new operator.
    ClusterNetworks.on(cp).waitReady(NETWORK_NAME);
    for (KubeletNode node : cluster.nodes()) {
      assertThat(NodePods.confFiles(node)).as("conf dir of %s", node.name()).contains(NETWORK_FILE);
    }
    phase("reinstall");

    // Pods go first, as an operator would drain before taking the pod network away: without a
    // conflist the runtime could no longer tear their networks down.
    client.namespaces().withName(apps).delete();
    await("the pods of " + apps + " are gone and their sandboxes' networks torn down")
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                client.pods().inNamespace(apps).list().getItems().isEmpty()
                    && cluster.nodes().stream()
                        .allMatch(n -> NodePods.readySandboxes(n, apps).isEmpty()));
    // What the hook takes away, put back at the end for the teardown: a sandbox the kubelet has
    // not yet removed can only be torn down by the runtime with its network's configuration.
    Map<KubeletNode, byte[]> removed = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      removed.put(node, readBytes(node.cniConfDir().resolve(NETWORK_FILE)));
    }
    try {
      CommandResult uninstall = release.uninstall();
      assertThat(uninstall.exitCode())
          .as(
              "helm uninstall: %s%s\nlogs:\n%s",
              uninstall.stdout(), uninstall.stderr(), PodLogs.tails(cluster, release.namespace()))
          .isZero();
      phase("uninstall-hook");

      assertThat(client.resources(CniNetwork.class).list().getItems()).isEmpty();
      for (KubeletNode node : cluster.nodes()) {
        assertThat(NodePods.confFiles(node))
            .as("conflists on %s after the hook", node.name())
            .doesNotContain(NETWORK_FILE);
      }
      // No pod network is left: the runtime says so, and the kubelet makes the Nodes NotReady.
      awaitEveryNodesReadyCondition(
          "after the hook removed the conflists",
          c -> assertThat(c.getMessage()).contains("cni plugin not initialized"));
      assertThat(client.apps().deployments().inNamespace(release.namespace()).list().getItems())
          .isEmpty();
      assertThat(client.batch().v1().jobs().inNamespace(release.namespace()).list().getItems())
          .as("the hook Job is deleted once it succeeded")
          .isEmpty();
      phase("nodes-without-network");
    } finally {
      removed.forEach((node, bytes) -> writeBytes(node.cniConfDir().resolve(NETWORK_FILE), bytes));
    }
  }

  private static byte[] readBytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void writeBytes(Path file, byte[] bytes) {
    try {
      Files.write(file, bytes);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * The published chart's default images (pulled by digest), the API server through the node
   * bridge's proxy (no kube-proxy, so no Service routing), the agent's state dir in each node's own
   * {@code /opt} (the nodes share the host's {@code /var/lib}), and a standby operator, as on a
   * cluster of two nodes or more (the failover scenario needs it). Nothing of the runtime: the
   * agent finds each node's containerd at the chart's default socket.
   */
  private static String[] installValues() {
    return ChartRelease.onNodes(cluster, "--set", "operator.replicas=2");
  }

  /**
   * The pod network: a bridge on every node, host-local addresses from each node's own podCIDR
   * (kube-controller-manager's --allocate-node-cidrs), rendered per node by the operator.
   */
  private static final String NETWORK = ClusterNetworks.podNetwork(NETWORK_NAME, BRIDGE);

  /** A network only on nodes labelled {@link #FAILOVER_LABEL}; never used by a pod. */
  private static final String FAILOVER_NETWORK =
      """
      apiVersion: cnioperator.dev/v1alpha1
      kind: CniNetwork
      metadata:
        name: failover
      spec:
        cniVersion: "1.0.0"
        priority: 90
        nodeSelector:
          matchLabels: {%s: "on"}
        plugins:
          - type: loopback
      """
          .formatted(FAILOVER_LABEL);

  private static List<Pod> awaitRunningPods(KubernetesClient client, int count) {
    return NodePods.awaitRunningPods(client, apps, count);
  }

  private static List<Pod> runningPodsOn(KubernetesClient client, KubeletNode node) {
    return NodePods.runningPods(client, apps, node);
  }

  private static Set<String> podIps(List<Pod> pods) {
    return pods.stream()
        .map(p -> p.getStatus().getPodIP())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /**
   * Waits until every node's CniNode status counts as many attachments of the pod network, all
   * healthy, as the node runs pods, and the CniNetwork has every node healthy and is not Degraded.
   */
  private static void awaitAttachmentsHealthyAsRunningPods(KubernetesClient client) {
    await("healthy attachments as many as running pods on every node")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              NodePods.assertAttachmentsHealthyAsRunningPods(
                  client, cluster.nodes(), apps, NETWORK_NAME);
              CniNetwork net = network(client);
              assertThat(net.getStatus().getNodes().getHealthy())
                  .as("healthy nodes of %s", NETWORK_NAME)
                  .isEqualTo(cluster.nodes().size());
              assertThat(condition(net, "Degraded").getStatus()).isEqualTo("False");
            });
  }

  private static CniNetwork network(KubernetesClient client) {
    return client.resources(CniNetwork.class).withName(NETWORK_NAME).get();
  }

  /** The pod network's entry in the CniNode status of {@code node}. */
  private static NodeNetworkStatus nodeNetwork(KubernetesClient client, KubeletNode node) {
    CniNode cniNode = client.resources(CniNode.class).withName(node.name()).get();
    assertThat(cniNode).as("CniNode %s", node.name()).isNotNull();
    assertThat(cniNode.getStatus()).as("status of CniNode %s", node.name()).isNotNull();
    return cniNode
        .getStatus()
        .network(NETWORK_NAME)
        .orElseThrow(
            () -> new AssertionError("CniNode " + node.name() + " reports no " + NETWORK_NAME));
  }

  private static Condition condition(CniNetwork network, String type) {
    assertThat(network.getStatus()).as("status of CniNetwork %s", name(network)).isNotNull();
    return network.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name(network) + " has no condition " + type));
  }

  /** Who holds the operator's leader-election Lease. */
  private static String leaseHolder(KubernetesClient client) {
    Lease lease =
        client
            .leases()
            .inNamespace(release.namespace())
            .withName(OperatorSettings.LEASE_NAME)
            .get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  /** The operator pods that run and are not being deleted. */
  private static List<Pod> liveOperators(KubernetesClient client, String ns) {
    return client
        .pods()
        .inNamespace(ns)
        .withLabel("app.kubernetes.io/component", "operator")
        .list()
        .getItems()
        .stream()
        .filter(p -> NodePods.running(p) && p.getMetadata().getDeletionTimestamp() == null)
        .toList();
  }

  /** Waits until the Ready condition of every Node satisfies {@code check}. */
  private static void awaitEveryNodesReadyCondition(String when, Consumer<NodeCondition> check) {
    for (KubeletNode node : cluster.nodes()) {
      await("the Ready condition of Node " + node.name() + " " + when)
          .atMost(Duration.ofSeconds(120))
          .untilAsserted(
              () -> check.accept(ready(cp.client().nodes().withName(node.name()).get())));
    }
  }

  private static NodeCondition ready(Node node) {
    return node.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .findFirst()
        .orElseThrow();
  }

  private static String name(HasMetadata object) {
    return object.getMetadata().getName();
  }

  private static void phase(String name) {
    long now = System.nanoTime();
    phases.put(name, (now - phaseStart) / 1_000_000);
    phaseStart = now;
  }
}
