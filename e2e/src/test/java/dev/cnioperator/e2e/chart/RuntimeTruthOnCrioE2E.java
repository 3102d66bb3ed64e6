package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.IpamSummary;
import dev.cnioperator.testkit.crio.CrioRelease;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * {@link RuntimeTruthE2E} on CRI-O 1.34, built from the Go module proxy, the chart installed with
 * the one value the install guide gives for it ({@code agent.hostPaths.profile=crio}): libcni 1.3
 * (caches the netns, selects 1.1.0, polls STATUS until the network is first ready, CHECKs each
 * ADD), its verbose CRI Status without containerd's {@code cniconfig}, pods' namespaces pinned by
 * {@code pinns}, and no infra container. Then the stale-IPAM cleanup beside CRI-O's own: CRI-O
 * deletes and garbage-collects attachments itself (its start-up GC), and the agent must neither
 * free an address again nor free a live pod's.
 */
class RuntimeTruthOnCrioE2E extends RuntimeTruthE2E {
  /** A label no node has: with it in the agent DaemonSet's nodeSelector, no node runs the agent. */
  private static final String AGENT_OFF = "e2e.cnioperator.dev/agent-off";

  @Override
  CrioRelease release() {
    return CrioRelease.V1_34;
  }

  /**
   * A pod deleted while the node has no agent: CRI-O runs its DEL (the address is free, libcni's
   * cache entry gone); CRI-O is then restarted (it restores the live sandbox and runs its start-up
   * GC) and the agent comes back. The restarted agent finds nothing stale and releases nothing, so
   * the deleted pod's address was freed once, by CRI-O; the live pod keeps its reservation and its
   * attachment checks healthy.
   */
  @Test
  @Order(7)
  void aPodDeletedWhileTheAgentIsDownIsFreedOnceByCrioAndTheLivePodKeepsItsAddress() {
    KubernetesClient client = cp.client();
    apply(podNetwork(""));
    awaitReady(POD_NETWORK);
    Pod live = runPausePod("live");
    Pod gone = runPausePod("gone");
    String liveIp = live.getStatus().getPodIP();
    String goneIp = gone.getStatus().getPodIP();
    String goneSandbox = NodePods.sandboxId(node, gone);
    assertThat(NodePods.reservations(node, POD_NETWORK)).contains(liveIp, goneIp);
    assertThat(cacheEntries(goneSandbox)).as("libcni's cache of the pod to delete").hasSize(1);
    String agentBefore = cniNode().getStatus().getAgentStartTime();

    agentOnTheNode(false);
    client
        .pods()
        .inNamespace(apps)
        .withName(gone.getMetadata().getName())
        .withGracePeriod(0)
        .delete();
    await("CRI-O's DEL of the deleted pod, no agent on the node")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              assertThat(
                      client.pods().inNamespace(apps).withName(gone.getMetadata().getName()).get())
                  .isNull();
              assertThat(NodePods.reservations(node, POD_NETWORK))
                  .doesNotContain(goneIp)
                  .contains(liveIp);
              assertThat(cacheEntries(goneSandbox)).isEmpty();
            });

    node.runtime().restart();
    agentOnTheNode(true);
    await("the restarted agent's report: the live pod healthy, nothing stale, nothing released")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              assertThat(cniNode().getStatus().getAgentStartTime()).isNotEqualTo(agentBefore);
              AttachmentSummary a = nodeNetwork(POD_NETWORK).getAttachments();
              assertThat(a.getHealthy()).as("healthy attachments").isEqualTo(a.getTotal());
              IpamSummary ipam = nodeNetwork(POD_NETWORK).getIpam();
              assertThat(ipam.getReservations()).isEqualTo(a.getTotal());
              assertThat(Objects.requireNonNullElse(ipam.getStale(), 0)).isZero();
              assertThat(Objects.requireNonNullElse(ipam.getReclaimed(), 0)).isZero();
            });
    assertThat(NodePods.reservations(node, POD_NETWORK)).contains(liveIp).doesNotContain(goneIp);
    assertThat(NodePods.sandboxId(node, live)).as("the live pod's sandbox, restored").isNotEmpty();
  }

  /** libcni's cache entries of the sandbox {@code id} on the node. */
  private List<Path> cacheEntries(String id) {
    try (Stream<Path> files = Files.list(node.cniStateDir().resolve("results"))) {
      return files.filter(f -> f.getFileName().toString().contains("-" + id + "-")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private CniNode cniNode() {
    return cp.client().resources(CniNode.class).withName(node.name()).get();
  }

  /**
   * Takes the agent off every node, or puts it back, through its DaemonSet's nodeSelector, and
   * waits until the node runs no agent pod, or a ready one.
   */
  private void agentOnTheNode(boolean on) {
    KubernetesClient client = cp.client();
    String namespace = release.namespace();
    String daemonSet =
        client
            .apps()
            .daemonSets()
            .inNamespace(namespace)
            .withLabel("app.kubernetes.io/component", "agent")
            .list()
            .getItems()
            .get(0)
            .getMetadata()
            .getName();
    String value = on ? "null" : "\"true\"";
    cp.kubectl(
            "-n",
            namespace,
            "patch",
            "daemonset",
            daemonSet,
            "--type=merge",
            "-p",
            "{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"%s\":%s}}}}}"
                .formatted(AGENT_OFF, value))
        .orThrow("kubectl patch daemonset " + daemonSet);
    await(on ? "the agent back on the node" : "no agent on the node")
        .atMost(SETTLE)
        .until(
            () -> {
              List<Pod> pods =
                  client
                      .pods()
                      .inNamespace(namespace)
                      .withLabel("app.kubernetes.io/component", "agent")
                      .list()
                      .getItems();
              return on
                  ? pods.stream()
                      .anyMatch(
                          p ->
                              p.getMetadata().getDeletionTimestamp() == null
                                  && p.getStatus().getConditions().stream()
                                      .anyMatch(
                                          c ->
                                              "Ready".equals(c.getType())
                                                  && "True".equals(c.getStatus())))
                  : pods.isEmpty();
            });
  }
}
