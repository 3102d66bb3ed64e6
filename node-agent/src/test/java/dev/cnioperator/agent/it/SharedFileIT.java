package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AppendedPlugins;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42.1: an installer that chains its plugin into the product's pod network file in place, as
 * Istio's install-cni does, and the agent share the file without a fight: the appended entry is
 * kept through many resyncs, reported in the CniNode status, and carried into a new revision so the
 * installer never finds the file without it; an edit of the agent's own entries is still drift.
 */
class SharedFileIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static final String ISTIO_ENTRY =
      "{\"type\":\"istio-cni\",\"log_level\":\"info\","
          + "\"kubernetes\":{\"kubeconfig\":\"/etc/cni/net.d/ZZZ-istio-cni-kubeconfig\","
          + "\"cni_bin_dir\":\"/opt/cni/bin\"}}";

  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private ChainingInstaller installer;

  @BeforeEach
  void setUp() throws IOException {
    cniNodes = new CniNodes(LocalControlPlane.shared());
    node = new SimulatedNode("shared", ToolPaths.pluginDir());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (installer != null) {
      installer.close();
    }
    if (agent != null) {
      agent.close();
    }
    cniNodes.delete(node.name);
    node.close();
  }

  @Test
  void anInstallerThatChainsIntoThePodNetworkIsKeptCarriedAndNeverFought() throws Exception {
    NodeNetwork v1 = CniNodes.network("podnet", 10, 31, "1.0.0");
    cniNodes.put(node.name, List.of(v1));
    agent =
        AgentProcess.start(
            node.name, node.paths, cniNodes.controlPlane.kubeconfigFile(), node.log());
    await().atMost(CONVERGE).until(() -> Files.exists(node.conflist(v1)));

    installer = new ChainingInstaller(node.paths.confDir(), ISTIO_ENTRY);
    // Many resyncs (every 2 s here): each used to restore the file, and the installer re-insert.
    agent.awaitOkPasses(10);
    assertThat(agent.conflistWrites())
        .as("the agent's writes of the file")
        .containsExactly("CREATE");
    assertThat(installer.writes).as("the installer's writes").hasValue(1);
    assertThat(types(node.conflist(v1))).containsExactly("bridge", "istio-cni");
    assertThat(agent.scrape()).contains("cni_agent_files_restored_total{kind=\"conflist\"} 0.0");
    NodeNetworkStatus reported = awaitAppended("podnet");
    assertThat(reported.getState()).isEqualTo(NetworkState.Applied);
    // No istio-cni binary on this node: said, not counted as a failure (the runtime may have it
    // in another bin dir), and left out of the probe.
    assertThat(reported.getMessage())
        .contains("also chains istio-cni, appended by another installer, with no binary in");
    assertThat(reported.getAppliedSha256()).as("the revision it holds").isEqualTo(v1.getSha256());
    AppendedPlugins appended = reported.getAppendedPlugins();
    assertThat(appended.getFileName()).isEqualTo(v1.getFileName());
    assertThat(appended.getSince()).isNotBlank();

    // A new revision carries the installer's entry: the file never lacks it.
    NodeNetwork v2 = CniNodes.network("podnet", 10, 32, "1.0.0");
    cniNodes.put(node.name, List.of(v2));
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(
            () ->
                cniNodes
                    .get(node.name)
                    .getStatus()
                    .network("podnet")
                    .orElseThrow()
                    .getAppliedSha256()
                    .equals(v2.getSha256()));
    JsonNode onDisk = JSON.readTree(node.conflist(v2).toFile());
    assertThat(onDisk.at("/plugins/0/ipam/subnet").asText()).isEqualTo("10.200.32.0/24");
    assertThat(onDisk.at("/plugins/1")).isEqualTo(JSON.readTree(ISTIO_ENTRY));
    agent.awaitOkPasses(3);
    assertThat(agent.conflistWrites()).containsExactly("CREATE", "UPDATE");
    assertThat(agent.log()).contains("carried=[istio-cni]");
    assertThat(installer.foundWithout)
        .as("times the installer found the file without it")
        .hasValue(0);
    assertThat(installer.writes).hasValue(1);
    assertThat(awaitAppended("podnet").getAppendedPlugins().getSince())
        .isEqualTo(appended.getSince());

    // Someone edits the agent's own entry: drift, restored without the tail; the installer
    // re-inserts.
    String edited = Files.readString(node.conflist(v2)).replace("cb32", "cb99");
    Files.writeString(node.conflist(v2), edited);
    await().atMost(CONVERGE).until(() -> agent.conflistWrites().contains("RESTORE_CHANGED"));
    await().atMost(CONVERGE).until(() -> installer.writes.get() == 2);
    agent.awaitOkPasses(3);
    assertThat(types(node.conflist(v2))).containsExactly("bridge", "istio-cni");
    assertThat(agent.conflistWrites()).containsExactly("CREATE", "UPDATE", "RESTORE_CHANGED");

    // The network leaves the node: its file goes, the installer's entry with it.
    cniNodes.put(node.name, List.of());
    await().atMost(CONVERGE).until(() -> !Files.exists(node.conflist(v2)));
  }

  private NodeNetworkStatus awaitAppended(String network) {
    return await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(
            () -> cniNodes.get(node.name).getStatus().network(network).orElseThrow(),
            s ->
                s.getAppendedPlugins() != null
                    && List.of("istio-cni").equals(s.getAppendedPlugins().getTypes()));
  }

  private static List<String> types(java.nio.file.Path file) throws IOException {
    List<String> types = new ArrayList<>();
    JSON.readTree(file.toFile()).get("plugins").forEach(p -> types.add(p.get("type").asText()));
    return types;
  }
}
