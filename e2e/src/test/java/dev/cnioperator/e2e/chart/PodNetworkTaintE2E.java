package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 42.5 on kubelet nodes, installed with {@code helm install --set
 * podNetworkTaint.enabled=true}: the operator keeps the pod network taint on a node until its agent
 * has proven the node's pod network (a foreign primary, {@code cbr0}, installed as flannel installs
 * it) with the chain declared onto it ({@code tuning} and {@code bandwidth}). Pods are placed by
 * kube-scheduler (a pod bound by {@code nodeName} would pass any taint). Two nodes: the operator
 * runs on one, the test's pods on the other, which is restarted: its agent alone, then the whole
 * node (kubelet, containerd and every container killed, down until the control plane notices, then
 * booted, the foreign primary's init container copying its file without the chain again). Every pod
 * the taint held back runs the full chain.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PodNetworkTaintE2E {
  private static final String KEY = "cnioperator.dev/pod-network-not-ready";
  private static final String CHAIN = "pod-shaping";
  private static final Duration SETTLE = Duration.ofSeconds(180);

  private KubeletCluster cluster;
  private LocalControlPlane cp;
  private KubeletNode guarded;
  private ChartRelease release;
  private String apps;
  private long started;

  @BeforeAll
  void install() {
    started = System.nanoTime();
    cluster = KubeletCluster.start(2);
    cp = cluster.controlPlane();
    guarded = cluster.nodes().get(1);
    String operatorNode = cluster.nodes().get(0).name();
    try {
      release =
          ChartRelease.installAndWait(
              cp,
              PublishedProduct.publish(cluster, Helm.provisioned()),
              "taint",
              OneNodeProduct.INSTALL_WAIT,
              ChartRelease.onNodes(
                  cluster,
                  "--set",
                  "podNetworkTaint.enabled=true",
                  "--set-string",
                  "operator.nodeSelector.kubernetes\\.io/hostname=" + operatorNode));
      apps = NodePods.appsNamespace(cp.client());
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  @AfterAll
  void uninstall() {
    try {
      if (release != null) {
        release.close();
      }
    } finally {
      cluster.close();
      System.out.printf(
          "event=pod-network-taint-e2e total_ms=%d%n", (System.nanoTime() - started) / 1_000_000);
    }
  }

  @Test
  void podsWaitForTheDeclaredChainAfterAnAgentAndANodeRestart() throws Exception {
    // No pod network on the node yet: the operator taints it, and a pod waits unscheduled. The
    // chain is declared before the primary arrives, as on a node that joins a cluster that has it:
    // a primary with no chain declared onto it is its product's business, and untaints the node.
    awaitTaint(true, "no pod network yet");
    Pod early = createPod("early");
    cp.kubectlWithInput(ForeignPrimary.chain(CHAIN, 1400), "apply", "-f", "-")
        .orThrow("kubectl apply of the declared chain");
    await("the chain in the CniNode spec of " + guarded.name())
        .atMost(SETTLE)
        .until(() -> ClusterNetworks.on(cp).networksOf(guarded.name()).contains(CHAIN));
    ForeignPrimary foreign = ForeignPrimary.install(cp, release, podCidr());
    await("the foreign primary's conflist on the node")
        .atMost(SETTLE)
        .until(() -> Files.exists(guarded.cniConfDir().resolve(ForeignPrimary.FILE)));
    // Until the taint is off, every look at the pod and then at the node: a pod placed while the
    // node was tainted fails (the taint, once off, stays off here).
    await(
            "the taint off "
                + guarded.name()
                + ": the chain proven, the early pod never placed before")
        .atMost(SETTLE)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              String placed = nodeOf(early);
              boolean on = tainted();
              assertThat(placed == null || !on)
                  .as("%s placed on %s while it was tainted", early.getMetadata().getName(), placed)
                  .isTrue();
              return !on;
            });
    ClusterNetworks.on(cp).waitRolledOut(CHAIN);
    assertChained(awaitRunning(early));
    System.out.printf(
        "event=pod-network-taint-e2e-as-a-user-sees-it%n$ kubectl get cninode %1$s -o"
            + " jsonpath=PodNetworkReady%n%2$s%n$ kubectl describe node %1$s (events)%n%3$s%n",
        guarded.name(),
        cp.kubectl(
                "get",
                "cninode",
                guarded.name(),
                "-o",
                "jsonpath={.status.conditions[?(@.type==\"PodNetworkReady\")]}")
            .stdout(),
        events());

    // The agent restarts, and the foreign primary rewrites its file while it is away.
    cp.kubectl(
            "-n",
            release.namespace(),
            "delete",
            "pod",
            "-l",
            "app.kubernetes.io/component=agent",
            "--field-selector",
            "spec.nodeName=" + guarded.name(),
            "--wait=false")
        .orThrow("delete the agent's pod");
    awaitTaint(true, "the agent restarting");
    Files.writeString(guarded.cniConfDir().resolve(ForeignPrimary.FILE), foreign.conflist);
    Pod duringAgentRestart = createPod("agent-restart");
    awaitTaint(false, "the restarted agent's proof");
    assertChained(awaitRunning(duringAgentRestart));

    // The node restarts, pods created throughout: every one created once the taint was on runs the
    // full chain.
    Restart withTaint = restartNode(true);
    assertThat(withTaint.held()).isPositive();
    assertThat(withTaint.heldMissing()).isEmpty();
    assertThat(withTaint.afterMissing()).isEmpty();
    System.out.printf("event=pod-network-taint-e2e-events%n%s%n", events());

    // The feature turned off while the node is tainted (down, so no agent of its can prove it): the
    // operator, restarted without the feature, takes the taint off.
    Instant down = powerOffUntilTainted();
    upgradeOperator("podNetworkTaint.enabled=false");
    awaitTaint(false, "the feature turned off");
    assertThat(controlPlaneNoticed()).as("the node still down").isTrue();
    powerOnUntilProven(down);

    // The same restart with the chart's default, no taint: the control plane's own taint
    // (unreachable) holds new pods back while the node is down, and lets them go when it is up.
    Restart withoutTaint = restartNode(false);
    System.out.printf(
        "event=pod-network-taint-e2e-figure pods created from the control plane's notice of the"
            + " node down until its chain was proven again: with the taint %d, %d of them without"
            + " the chain; without the taint %d, %d of them without the chain%n",
        withTaint.held(),
        withTaint.heldMissing().size(),
        withoutTaint.held(),
        withoutTaint.heldMissing().size());

    // helm uninstall with the taint on and the node's agent away: nothing is left to take it off
    // but the chart's post-delete hook, which does once the operator is gone.
    upgradeOperator("podNetworkTaint.enabled=true");
    awaitTaint(false, "the feature on again, the node proven");
    Instant downAgain = powerOffUntilTainted();
    // Not --wait: the agent pod of a node that is down stays Terminating until the node is back.
    release.uninstallNoWait().orThrow("helm uninstall");
    assertThat(cp.client().nodes().list().getItems())
        .as("nodes still carrying " + KEY + " after helm uninstall returned")
        .noneMatch(n -> NodePods.hasTaint(n, KEY));
    assertThat(
            cp.kubectl(
                    "get",
                    "jobs,serviceaccounts,roles,rolebindings,clusterroles,clusterrolebindings",
                    "-A",
                    "-l",
                    "app.kubernetes.io/component=uninstall",
                    "-o",
                    "name")
                .orThrow("kubectl get the uninstall hook's objects")
                .stdout())
        .as("the uninstall hook's objects, which helm deletes once its Job succeeded")
        .isBlank();
    guarded.powerOn();
    Pod afterUninstall = createPod("after-uninstall");
    await("a pod placed on " + guarded.name() + " after the uninstall")
        .atMost(SETTLE)
        .until(() -> nodeOf(afterUninstall) != null);
    System.out.printf(
        "event=pod-network-taint-e2e-uninstalled node_down_since=%s pod=%s node=%s%n",
        downAgain, afterUninstall.getMetadata().getName(), nodeOf(afterUninstall));
  }

  /** Powers the guarded node off and waits until the operator has tainted it; returns when. */
  private Instant powerOffUntilTainted() {
    Instant off = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    guarded.powerOff();
    awaitTaint(true, "the node down");
    return off;
  }

  /** Powers the guarded node on and waits until its agent, started since, proved the chain. */
  private void powerOnUntilProven(Instant since) {
    guarded.powerOn();
    await("the chain proven on " + guarded.name() + " after its boot")
        .atMost(SETTLE)
        .until(() -> chainProvenSince(since));
  }

  /** {@code helm upgrade --reuse-values --set <value>}, then the operator's rollout. */
  private void upgradeOperator(String value) {
    release.upgrade("--reuse-values", "--set", value).orThrow("helm upgrade --set " + value);
    cp.kubectl(
            "-n",
            release.namespace(),
            "rollout",
            "status",
            "deployment",
            "-l",
            "app.kubernetes.io/component=operator",
            "--timeout=180s")
        .orThrow("the operator rolled out with " + value);
  }

  /**
   * What became of the pods created during one node restart: those created before the control plane
   * noticed the node down (bound to it, started at boot), those created while it was held back (the
   * pod network taint, or without it the control plane's), and those created after.
   */
  private record Restart(
      int boundBefore,
      List<String> boundBeforeMissing,
      int held,
      List<String> heldMissing,
      int after,
      List<String> afterMissing) {}

  /**
   * Powers the guarded node off and on, creating a pod every 2 s from the power-off until 4 s after
   * the node's chain is proven again ({@code taint}: once the pod network taint is off), and
   * reports each pod's chain. Without the taint, the pods created while the control plane held the
   * node down start as soon as it is up, before the chain may be back.
   */
  private Restart restartNode(boolean taint) throws Exception {
    List<Created> created = new ArrayList<>();
    long off = System.nanoTime();
    guarded.powerOff();
    long heldAt =
        createPodsUntil(
            created, taint ? this::tainted : this::controlPlaneNoticed, Duration.ofSeconds(150));
    createPodsFor(created, Duration.ofSeconds(4));
    for (Created c : created) {
      if (c.at() > heldAt + 1_000_000_000L) {
        assertThat(nodeOf(c.pod())).as("a pod created on the node while it was down").isNull();
      }
    }
    long on = System.nanoTime();
    Instant booted = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    guarded.powerOn();
    // Until the taint comes off; without it, until the node's agent, started since the boot,
    // reports the chain proven (when the taint would have come off).
    long releasedAt =
        createPodsUntil(
            created,
            taint ? () -> !tainted() : () -> chainProvenSince(booted),
            Duration.ofSeconds(150));
    createPodsFor(created, Duration.ofSeconds(4));
    List<String> beforeMissing = new ArrayList<>();
    List<String> heldMissing = new ArrayList<>();
    List<String> afterMissing = new ArrayList<>();
    int held = 0;
    int after = 0;
    for (Created c : created) {
      Optional<String> missing = ForeignPrimary.missingChain(guarded, awaitRunning(c.pod()));
      if (c.at() <= heldAt + 1_000_000_000L) {
        missing.ifPresent(beforeMissing::add);
      } else if (c.at() < releasedAt) {
        held++;
        missing.ifPresent(heldMissing::add);
      } else {
        after++;
        missing.ifPresent(afterMissing::add);
      }
    }
    Restart r =
        new Restart(
            created.size() - held - after, beforeMissing, held, heldMissing, after, afterMissing);
    System.out.printf(
        "event=pod-network-taint-e2e-node-restart taint=%s down_ms=%d held_after_power_off_ms=%d"
            + " released_after_power_on_ms=%d %s%n",
        taint,
        (on - off) / 1_000_000,
        (heldAt - off) / 1_000_000,
        (releasedAt - on) / 1_000_000,
        r);
    return r;
  }

  /** The node's CniNode reports PodNetworkReady from an agent started at {@code since} or later. */
  private boolean chainProvenSince(Instant since) {
    CniNodeStatus status =
        cp.client().resources(CniNode.class).withName(guarded.name()).get().getStatus();
    return status != null
        && status.getAgentStartTime() != null
        && !Instant.parse(status.getAgentStartTime()).isBefore(since)
        && status.getConditions().stream()
            .anyMatch(c -> "PodNetworkReady".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The node lifecycle controller marked the node's Ready condition Unknown (no heartbeat). */
  private boolean controlPlaneNoticed() {
    return cp.client().nodes().withName(guarded.name()).get().getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && !"True".equals(c.getStatus()));
  }

  /** A pod created at {@code at} (System.nanoTime). */
  private record Created(Pod pod, long at) {}

  /** Creates a pod every 2 s until {@code until} holds; returns when it first held. */
  private long createPodsUntil(List<Created> created, Callable<Boolean> until, Duration atMost)
      throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    long next = System.nanoTime();
    while (!until.call()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + atMost + ": " + until + "; node " + describe());
      }
      if (System.nanoTime() >= next) {
        created.add(new Created(createPod("restart"), System.nanoTime()));
        next = System.nanoTime() + 2_000_000_000L;
      }
      Thread.sleep(100);
    }
    return System.nanoTime();
  }

  private void createPodsFor(List<Created> created, Duration span) throws Exception {
    long end = System.nanoTime() + span.toNanos();
    createPodsUntil(created, () -> System.nanoTime() >= end, span.plusSeconds(5));
  }

  private void awaitTaint(boolean on, String why) {
    try {
      await((on ? "the taint on " : "the taint off ") + guarded.name() + ": " + why)
          .atMost(SETTLE)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> tainted() == on);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "\n" + diagnosis(), e);
    }
  }

  /** What the operator decides from: the Events it recorded, the agent's pod and its report. */
  private String diagnosis() {
    return "operator's Events:\n"
        + events()
        + "\nagent pods:\n"
        + cp.kubectl(
                "-n",
                release.namespace(),
                "get",
                "pods",
                "-l",
                "app.kubernetes.io/component=agent",
                "-o",
                "jsonpath={range .items[*]}{.metadata.name} {.spec.nodeName}"
                    + " {.status.conditions[?(@.type==\"Ready\")].status}"
                    + " {.status.containerStatuses[0].state}{\"\\n\"}{end}")
            .stdout()
        + "\nCniNode status (agentStartTime, conditions):\n"
        + cp.kubectl(
                "get",
                "cninode",
                guarded.name(),
                "-o",
                "jsonpath={.status.agentStartTime} {.status.conditions}")
            .stdout()
        + "\noperator log (last 40 lines):\n"
        + lastLines(release.log("operator"), 40);
  }

  private static String lastLines(String text, int count) {
    List<String> lines = text.lines().toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
  }

  private boolean tainted() {
    return NodePods.hasTaint(cp.client().nodes().withName(guarded.name()).get(), KEY);
  }

  private String describe() {
    return cp.kubectl("describe", "node", guarded.name()).stdout();
  }

  /** The Events about the guarded node from the operator, one per line. */
  private String events() {
    return cp.kubectl(
            "get",
            "events",
            "-n",
            "default",
            "--field-selector",
            "involvedObject.name=" + guarded.name() + ",source=cni-operator",
            "-o",
            "custom-columns=REASON:.reason,MESSAGE:.message")
        .stdout();
  }

  private String podCidr() {
    return cp.client().nodes().withName(guarded.name()).get().getSpec().getPodCIDR();
  }

  /** A pause pod for the guarded node, placed there by kube-scheduler (which honours taints). */
  private Pod createPod(String prefix) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(TestNames.unique(prefix))
            .endMetadata()
            .withNewSpec()
            .withNodeSelector(Map.of("kubernetes.io/hostname", guarded.name()))
            .withTerminationGracePeriodSeconds(0L)
            .withContainers(NodePods.pauseContainer())
            .endSpec()
            .build();
    return cp.client().pods().inNamespace(apps).resource(pod).create();
  }

  private String nodeOf(Pod pod) {
    return cp.client()
        .pods()
        .inNamespace(apps)
        .withName(pod.getMetadata().getName())
        .get()
        .getSpec()
        .getNodeName();
  }

  private Pod awaitRunning(Pod pod) {
    String name = pod.getMetadata().getName();
    return await("pod " + name + " running")
        .atMost(SETTLE)
        .until(() -> cp.client().pods().inNamespace(apps).withName(name).get(), NodePods::running);
  }

  private void assertChained(Pod pod) throws IOException {
    assertThat(ForeignPrimary.missingChain(guarded, pod)).isEmpty();
  }
}
