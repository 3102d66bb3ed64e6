package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.operator.TestNetworks;
import dev.cnioperator.testkit.CommandResult;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A CniNetwork's life against a real API server, with the node agents simulated by the test. */
class CniNetworkLifecycleIT {

  private ClusterFixture cluster;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  @Test
  void validNetworkIsReadyOnceEveryAgentReportsTheRenderedSha() {
    String a = cluster.node("ready");
    String b = cluster.node("ready");
    cluster
        .apply("dbnet-" + cluster.pool, cluster.bridgeSpec("ct-dbnet0", "10.200.1.0/24"))
        .orThrow("apply");
    String name = "dbnet-" + cluster.pool;

    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.networksOn(a).contains(name) && cluster.networksOn(b).contains(name));
    CniNetwork network = cluster.network(name);
    NodeNetwork onNode = cluster.specOf(a).get(0);
    assertThat(onNode.getSha256()).isEqualTo(network.getStatus().getRendered().getSha256());
    assertThat(onNode.getContent()).isEqualTo(network.getStatus().getRendered().getContent());
    assertThat(onNode.getFileName()).isEqualTo("50-" + name + ".conflist");
    assertThat(cluster.cniNode(a).getSpec().getPlugins())
        .extracting(p -> p.getName() + ":" + p.getSource())
        .containsExactly("bridge:bundled", "host-local:bundled");
    assertThat(cluster.cniNode(a).getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getKind() + "/" + o.getName()).isEqualTo("Node/" + a));
    assertThat(cluster.condition(name, "Ready"))
        .get()
        .extracting(Condition::getReason)
        .isEqualTo("Applying");
    // Both are server-side applied by one field manager, so a person can tell who owns what.
    assertThat(network.getMetadata().getManagedFields())
        .anySatisfy(
            f ->
                assertThat(f.getManager() + "/" + f.getOperation() + "/" + f.getSubresource())
                    .isEqualTo("cni-operator/Apply/status"));
    assertThat(cluster.cniNode(a).getMetadata().getManagedFields())
        .anySatisfy(
            f ->
                assertThat(f.getManager() + "/" + f.getOperation())
                    .isEqualTo("cni-operator/Apply"));

    cluster.agentReportsApplied(a);
    cluster.agentReportsApplied(b);

    CommandResult wait =
        cluster.controlPlane.kubectl(
            "wait", "--for=condition=Ready", "--timeout=60s", "cninetwork/" + name);
    assertThat(wait.exitCode()).as(wait.stderr()).isZero();
    assertThat(cluster.network(name).getStatus().getNodes().getReady()).isEqualTo("2/2");
    assertThat(cluster.condition(name, "Degraded"))
        .get()
        .extracting(Condition::getStatus)
        .isEqualTo("False");
    String events =
        cluster.controlPlane.kubectl("describe", "cninetwork", name).orThrow("describe").stdout();
    assertThat(events)
        .containsPattern("Normal +Accepted")
        .containsPattern("Normal +Ready")
        .as("a new network on its way to Ready is no call for a person")
        .doesNotContain("Warning");
    String table = cluster.controlPlane.kubectl("get", "cninet", name).orThrow("get").stdout();
    assertThat(table).contains("2/2").contains("True").contains(name);
  }

  @Test
  void failingAttachmentsMakeTheNetworkDegradedNamingNodeAndPod() {
    String a = cluster.node("degr");
    String name = "degr-" + cluster.pool;
    cluster.apply(name, cluster.bridgeSpec("ct-degr0", "10.200.2.0/24")).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(name));

    cluster.agentReportsApplied(
        a,
        new FailingAttachment()
            .setPod("web-1")
            .setNamespace("shop")
            .setContainerId("abc123")
            .setIfName("eth0")
            .setError("CNI error 11: interface eth0 not found"));

    Condition degraded = cluster.awaitCondition(name, "Degraded", "True");
    assertThat(degraded.getReason()).isEqualTo("AttachmentsFailing");
    assertThat(degraded.getMessage())
        .contains(a)
        .contains("shop/web-1")
        .contains("interface eth0 not found");
    assertThat(cluster.condition(name, "Ready"))
        .get()
        .extracting(Condition::getStatus)
        .isEqualTo("False");
  }

  @Test
  void invalidEditKeepsTheLastValidRevisionOnTheNodes() {
    String a = cluster.node("edit");
    String name = "edit-" + cluster.pool;
    cluster.apply(name, cluster.bridgeSpec("ct-edit0", "10.200.3.0/24")).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(name));
    String goodSha = cluster.specOf(a).get(0).getSha256();

    cluster
        .apply(name, cluster.bridgeSpec("ct-edit0", "10.200.3.0/24") + "    cni.dev/secret: x\n")
        .orThrow("apply invalid edit");

    Condition accepted = cluster.awaitCondition(name, "Accepted", "False");
    assertThat(accepted.getReason()).isEqualTo("InvalidConfiguration");
    assertThat(accepted.getMessage())
        .contains("spec.plugins[0]")
        .contains("cni.dev/secret")
        .contains("nodes keep generation 1");
    assertThat(cluster.network(name).getStatus().getRendered().getSha256()).isEqualTo(goodSha);
    assertThat(cluster.specOf(a))
        .singleElement()
        .extracting(NodeNetwork::getSha256)
        .isEqualTo(goodSha);
  }

  @Test
  void relabellingANodeMovesNetworksOnAndOff() {
    String a = cluster.node("move");
    String name = "move-" + cluster.pool;
    cluster.apply(name, cluster.bridgeSpec("ct-move0", "10.200.4.0/24")).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(name));

    cluster.relabel(a, Map.of(ClusterFixture.POOL, "elsewhere"));
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).isEmpty());
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.network(name).getStatus().getNodes().getSelected() == 0);
    assertThat(cluster.condition(name, "Ready"))
        .get()
        .extracting(Condition::getReason)
        .isEqualTo("NoNodesSelected");

    cluster.relabel(a, Map.of(ClusterFixture.POOL, cluster.pool));
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(name));
  }

  @Test
  void deletingANodeRemovesItsCniNode() {
    String a = cluster.node("gone");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.cniNode(a) != null);

    cluster.client.nodes().withName(a).delete();

    // The owner reference does this, through kube-controller-manager's garbage collector.
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.cniNode(a) == null);
  }

  /**
   * An appended network reaches its nodes named after the network it appends to, with cleanup off
   * though the API server stored the default ipamCleanup.enabled true in its spec.
   */
  @Test
  void anAppendedNetworkReachesItsNodesNamedForItsTargetWithCleanupOff() {
    String a = cluster.node("append");
    String name = "shaping-" + cluster.pool;
    cluster
        .apply(
            name,
            "  appendTo: cbr0\n  nodeSelector: {matchLabels: {\""
                + ClusterFixture.POOL
                + "\": "
                + cluster.pool
                + "}}\n  plugins:\n  - type: bandwidth\n    capabilities: {bandwidth: true}\n")
        .orThrow("apply");

    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(name));
    NodeNetwork onNode = cluster.specOf(a).get(0);
    assertThat(onNode.getAppendTo()).isEqualTo("cbr0");
    assertThat(onNode.getFileName()).isEqualTo("50-cbr0.conflist");
    assertThat(TestNetworks.object(onNode.getContent()).get("name").textValue()).isEqualTo("cbr0");
    assertThat(onNode.getIpamCleanup().getEnabled()).isFalse();
    CniNetwork network = cluster.network(name);
    assertThat(network.getSpec().getIpamCleanup().getEnabled()).isTrue();
    assertThat(network.getStatus().getNetworkName()).isEqualTo("cbr0");
    assertThat(cluster.condition(name, "Accepted"))
        .get()
        .extracting(Condition::getMessage)
        .asString()
        .startsWith("rendered plugins to append to network \"cbr0\"");
  }

  /**
   * spec.appendAs alone is not a new revision (DesiredNodeSpec): its edit reaches the nodes once
   * the network's reconciler has observed it, and InPlace, the default, is written as nothing.
   */
  @Test
  void anEditOfAppendAsAloneReachesTheNodesWithTheSameRevision() {
    String a = cluster.node("dropin");
    String name = "dropin-" + cluster.pool;
    String spec =
        "  appendTo: cbr0\n  nodeSelector: {matchLabels: {\""
            + ClusterFixture.POOL
            + "\": "
            + cluster.pool
            + "}}\n  plugins:\n  - type: tuning\n";
    cluster.apply(name, spec).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(name));
    NodeNetwork inPlace = cluster.specOf(a).get(0);
    assertThat(inPlace.getAppendAs()).isNull();

    cluster.apply(name, "  appendAs: DropIn\n" + spec).orThrow("apply DropIn");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.specOf(a).get(0).getAppendAs() == AppendPlacement.DropIn);
    assertThat(cluster.specOf(a).get(0).getRevision()).isEqualTo(inPlace.getRevision());

    cluster.apply(name, "  appendAs: InPlace\n" + spec).orThrow("apply InPlace");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.specOf(a).get(0).equals(inPlace));
  }

  @Test
  void theNewerOfTwoClashingNetworksGetsConflictNamingTheOlder() {
    String a = cluster.node("clash");
    // Named so that the older also wins the tie-break when both get the same creation second.
    String older = "clash-a-old-" + cluster.pool;
    String newer = "clash-b-new-" + cluster.pool;
    cluster
        .apply(
            older,
            "  networkName: shared-"
                + cluster.pool
                + "\n"
                + cluster.bridgeSpec("ct-cl0", "10.200.5.0/24"))
        .orThrow("apply older");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(a).contains(older));

    cluster
        .apply(
            newer,
            "  networkName: shared-"
                + cluster.pool
                + "\n  priority: 10\n"
                + cluster.bridgeSpec("ct-cl1", "10.200.6.0/24"))
        .orThrow("apply newer");

    Condition accepted = cluster.awaitCondition(newer, "Accepted", "False");
    assertThat(accepted.getReason()).isEqualTo("Conflict");
    assertThat(accepted.getMessage())
        .contains("network name \"shared-" + cluster.pool + "\"")
        .contains(older)
        .contains(a);
    assertThat(cluster.networksOn(a)).containsExactly(older);
    assertThat(cluster.condition(older, "Accepted"))
        .get()
        .extracting(Condition::getStatus)
        .isEqualTo("True");
  }

  @Test
  void deletingANetworkEmptiesItFromEveryNodeAndTheFinalizerCompletes() {
    String withAgent = cluster.node("del");
    String withoutAgent = cluster.node("del");
    String name = "del-" + cluster.pool;
    cluster.apply(name, cluster.bridgeSpec("ct-del0", "10.200.7.0/24")).orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                cluster.networksOn(withAgent).contains(name)
                    && cluster.networksOn(withoutAgent).contains(name));
    cluster.agentReportsApplied(withAgent);
    cluster.awaitCondition(name, "Accepted", "True");

    cluster.client.resources(CniNetwork.class).withName(name).delete();

    await()
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                cluster.networksOn(withAgent).isEmpty()
                    && cluster.networksOn(withoutAgent).isEmpty());
    // The agent has not reported removal yet, so the finalizer holds the network.
    assertThat(cluster.network(name)).isNotNull();
    assertThat(cluster.network(name).getMetadata().getFinalizers()).isNotEmpty();

    cluster.agentReportsRemoved(withAgent, name);

    await().atMost(Duration.ofSeconds(15)).until(() -> cluster.network(name) == null);
    CniNode node = cluster.cniNode(withoutAgent);
    assertThat(node.getStatus()).isNull();
    assertThat(List.of(cluster.networksOn(withAgent), cluster.networksOn(withoutAgent)))
        .allMatch(List::isEmpty);
  }

  @Test
  void anAgentThatNeverReportsRemovalHoldsTheDeletionOnlyUntilTheTimeout() {
    String silent = cluster.node("mute");
    String name = "mute-" + cluster.pool;
    cluster.apply(name, cluster.bridgeSpec("ct-mute0", "10.200.14.0/24")).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(silent).contains(name));
    cluster.agentReportsApplied(silent);
    cluster.awaitCondition(name, "Ready", "True");
    // Ready False while the node takes the network is progress: a Normal Event, not a Warning.
    await("the Applying Event")
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.events(name, "Normal"), e -> e.contains("Applying"));
    assertThat(cluster.events(name, "Warning")).doesNotContain("Applying");

    long start = System.nanoTime();
    cluster.client.resources(CniNetwork.class).withName(name).delete();

    await()
        .atMost(TestOperator.FINALIZER_TIMEOUT.plusSeconds(30))
        .until(() -> cluster.network(name) == null);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(took).isGreaterThanOrEqualTo(TestOperator.FINALIZER_TIMEOUT.minusSeconds(2));
    assertThat(cluster.networksOn(silent)).isEmpty();
    String events = cluster.events(name, null);
    assertThat(events).contains("RemovalTimedOut").contains(silent);
  }

  @Test
  void aCniPluginProvidesItsBinaryToTheNodesItSelects() {
    String gpu = cluster.node("plug", Map.of(ClusterFixture.POOL, cluster.pool, "gpu", "true"));
    String plain = cluster.node("plug");
    String plugin = "bridge-" + cluster.pool;
    String sha = "d".repeat(64);
    cluster
        .controlPlane
        .kubectlWithInput(
            "apiVersion: cnioperator.dev/v1alpha1\nkind: CniPlugin\nmetadata: {name: "
                + plugin
                + "}\n"
                + "spec: {binaryName: bridge, url: \"https://plugins.example/bridge\", sha256: "
                + sha
                + ", nodeSelector: {matchLabels: {gpu: \"true\"}}}\n",
            "apply",
            "-f",
            "-")
        .orThrow("apply CniPlugin");
    String name = "plug-" + cluster.pool;
    try {
      cluster.apply(name, cluster.bridgeSpec("ct-plug0", "10.200.15.0/24")).orThrow("apply");

      await()
          .atMost(ClusterFixture.WAIT)
          .until(
              () ->
                  cluster.networksOn(gpu).contains(name)
                      && cluster.networksOn(plain).contains(name));
      assertThat(cluster.cniNode(gpu).getSpec().getPlugins())
          .extracting(
              p -> p.getName() + " " + p.getSource() + " " + p.getUrl() + " " + p.getSha256())
          .containsExactly(
              "bridge " + plugin + " https://plugins.example/bridge " + sha,
              "host-local bundled null null");
      assertThat(cluster.cniNode(plain).getSpec().getPlugins())
          .extracting(p -> p.getName() + " " + p.getSource())
          .containsExactly("bridge bundled", "host-local bundled");
    } finally {
      cluster.controlPlane.kubectl("delete", "cniplugin", plugin, "--ignore-not-found");
    }
    await()
        .atMost(ClusterFixture.WAIT)
        .until(
            () -> cluster.cniNode(gpu).getSpec().getPlugins().get(0).getSource().equals("bundled"));
  }
}
