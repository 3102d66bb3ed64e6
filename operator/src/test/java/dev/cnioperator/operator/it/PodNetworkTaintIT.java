package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pod network taint against a real API server: the operator (with {@code --pod-network-taint})
 * takes it off a node once the node's agent pod is ready and the agent, since it started, reports
 * the pod network proven, and puts it back when the agent is not ready, restarts, or reports the
 * chain not proven; other taints of the node are left as they are. The agent pod and its reports
 * are played by the test (no kubelet).
 */
class PodNetworkTaintIT {
  private ClusterFixture cluster;
  private String node;
  private String pod;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
    node = cluster.node("tainted");
    // As a kubelet registers it (--register-with-taints), beside a taint of someone else's.
    setTaints(
        List.of(
            new Taint("NoSchedule", "example.com/other", null, "x"),
            new Taint("NoSchedule", TestOperator.POD_NETWORK_TAINT, null, null)));
    pod = node + "-agent";
  }

  @AfterEach
  void tearDown() {
    cluster.client.pods().inNamespace("default").withName(pod).withGracePeriod(0).delete();
    cluster.close();
  }

  @Test
  void theTaintFollowsTheRunningAgentsProofOfThePodNetwork() {
    await("CniNode of " + node)
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.cniNode(node) != null);
    Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS);
    agentPod(true, start);
    // Ready, but nothing reported by this agent yet: the taint stays.
    report(start.minusSeconds(60), "True");
    sleepThroughAReconcile();
    assertThat(taints()).contains(TestOperator.POD_NETWORK_TAINT);

    report(start, "True");
    awaitTainted(false, "taint removed");
    assertThat(taints()).containsExactly("example.com/other");
    assertThat(describeNode()).contains("PodNetworkUntainted");

    // With no taint left on the node, the API server stores no list to add to.
    setTaints(List.of());
    agentPod(false, start);
    awaitTainted(true, "taint back while the agent is not ready");
    assertThat(taints()).containsExactly(TestOperator.POD_NETWORK_TAINT);

    // The agent's container restarted: ready again, but its report is the old agent's.
    Instant restarted = start.plusSeconds(30);
    agentPod(true, restarted);
    sleepThroughAReconcile();
    assertThat(taints()).contains(TestOperator.POD_NETWORK_TAINT);
    report(restarted, "True");
    awaitTainted(false, "taint removed after the restarted agent's report");

    report(restarted, "False");
    awaitTainted(true, "taint back while the chain is not proven");
    assertThat(describeNode()).contains("PodNetworkTainted").contains("PodNetworkReady is False");
  }

  private void setTaints(List<Taint> taints) {
    cluster
        .client
        .nodes()
        .withName(node)
        .edit(
            n -> {
              n.getSpec().setTaints(taints);
              return n;
            });
  }

  private void awaitTainted(boolean tainted, String alias) {
    await(alias)
        .atMost(ClusterFixture.WAIT)
        .until(() -> taints().contains(TestOperator.POD_NETWORK_TAINT) == tainted);
  }

  /** What a person sees of the node, its Events included. */
  private String describeNode() {
    return cluster.controlPlane.kubectl("describe", "node", node).orThrow("describe node").stdout();
  }

  private List<String> taints() {
    Node n = cluster.client.nodes().withName(node).get();
    return n.getSpec().getTaints() == null
        ? List.of()
        : n.getSpec().getTaints().stream().map(Taint::getKey).toList();
  }

  /** Plays the agent's pod on the node, as its kubelet reports it. */
  private void agentPod(boolean ready, Instant containerStarted) {
    var pods = cluster.client.pods().inNamespace("default");
    if (pods.withName(pod).get() == null) {
      pods.resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(pod)
                  .withLabels(Map.of(TestOperator.AGENT_LABEL, "true"))
                  .endMetadata()
                  .withNewSpec()
                  .withNodeName(node)
                  .addNewContainer()
                  .withName("agent")
                  .withImage("cni-operator-agent:test")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
    Pod current = pods.withName(pod).get();
    current.setStatus(
        new PodBuilder()
            .withNewStatus()
            .withPhase("Running")
            .addNewCondition()
            .withType("Ready")
            .withStatus(ready ? "True" : "False")
            .endCondition()
            .addNewContainerStatus()
            .withName("agent")
            .withImage("cni-operator-agent:test")
            .withImageID("")
            .withReady(ready)
            .withRestartCount(0)
            .withNewState()
            .withNewRunning()
            .withStartedAt(containerStarted.toString())
            .endRunning()
            .endState()
            .endContainerStatus()
            .endStatus()
            .build()
            .getStatus());
    pods.resource(current).updateStatus();
  }

  /** Plays the agent's report: when it started, and whether the pod network is proven. */
  private void report(Instant agentStart, String podNetworkReady) {
    CniNode current = cluster.cniNode(node);
    current.setStatus(
        new CniNodeStatus()
            .setAgentStartTime(agentStart.toString())
            .setConditions(
                List.of(
                    new ConditionBuilder()
                        .withType("PodNetworkReady")
                        .withStatus(podNetworkReady)
                        .withReason(
                            podNetworkReady.equals("True") ? "PodNetworkProven" : "ChainNotProven")
                        .withMessage("pod network cbr0 in 10-cbr0.conflist")
                        .withLastTransitionTime(agentStart.toString())
                        .build())));
    cluster.client.resource(current).updateStatus();
  }

  /** Long enough for the operator to have acted on the last change, had it wanted to. */
  private static void sleepThroughAReconcile() {
    try {
      Thread.sleep(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
