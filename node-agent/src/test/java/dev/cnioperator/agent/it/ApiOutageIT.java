package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.ApiServerProxy;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Without a fresh read of its CniNode the agent changes nothing on disk: not while the API server
 * is unreachable, not while the CniNode is missing. It converges once the read works again.
 */
class ApiOutageIT {
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  /** Node passes to watch: of several, all but the first read the CniNode after the change. */
  private static final int QUIET_PASSES = 3;

  private CniNodes cniNodes;
  private SimulatedNode node;
  private ApiServerProxy proxy;
  private AgentProcess agent;

  @BeforeEach
  void setUp() throws Exception {
    LocalControlPlane cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("outage", ToolPaths.pluginDir());
    proxy = ApiServerProxy.in(cp);
    Path kubeconfig = proxy.writeKubeconfig(cp.kubeconfigFile(), node.root.resolve("kubeconfig"));
    agent = AgentProcess.start(node.name, node.paths, kubeconfig, node.log());
  }

  @AfterEach
  void tearDown() throws Exception {
    agent.close();
    proxy.close();
    cniNodes.delete(node.name);
    node.close();
  }

  @Test
  void nothingOnDiskChangesWhileTheApiServerIsUnreachableAndItConvergesAfter() throws Exception {
    NodeNetwork keep = CniNodes.network("keep", 50, 31, "1.0.0");
    NodeNetwork drop = CniNodes.network("drop", 60, 32, "1.0.0");
    cniNodes.put(node.name, List.of(keep, drop));
    await().atMost(CONVERGE).until(() -> Files.exists(node.conflist(drop.getFileName())));
    agent.awaitOkPasses(2); // the pass that wrote the files has ended, the manifest with it
    Map<String, String> before = node.snapshot();

    proxy.cut();
    // A pass that read the CniNode just before the cut may still finish; wait for one that failed.
    await().atMost(CONVERGE).until(() -> agent.log().contains("reason=api-unreachable"));
    NodeNetwork keepV2 = CniNodes.network("keep", 50, 33, "1.0.0");
    cniNodes.put(node.name, List.of(keepV2));
    Files.delete(node.conflist(keep.getFileName()));
    agent.awaitLogged(
        "event=pass-skipped node=" + node.name + " reason=api-unreachable", QUIET_PASSES);
    Map<String, String> during = node.snapshot();
    assertThat(during).doesNotContainKey("etc/cni/net.d/" + keep.getFileName());
    during.put(
        "etc/cni/net.d/" + keep.getFileName(), before.get("etc/cni/net.d/" + keep.getFileName()));
    assertThat(during).isEqualTo(before);

    proxy.restore();
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                !Files.exists(node.conflist(drop.getFileName()))
                    && Files.exists(node.conflist(keep.getFileName()))
                    && Files.readString(node.conflist(keep.getFileName()))
                        .equals(keepV2.getContent()));
  }

  @Test
  void nothingOnDiskChangesWhileTheCniNodeIsMissing() throws Exception {
    NodeNetwork n = CniNodes.network("gone", 50, 34, "1.0.0");
    cniNodes.put(node.name, List.of(n));
    await().atMost(CONVERGE).until(() -> Files.exists(node.conflist(n.getFileName())));
    agent.awaitOkPasses(2); // the pass that wrote the file has ended, the manifest with it
    Map<String, String> before = node.snapshot();

    cniNodes.delete(node.name);
    agent.awaitLogged(
        "event=pass-skipped node=" + node.name + " reason=cninode-missing", QUIET_PASSES);
    assertThat(node.snapshot()).isEqualTo(before);
    assertThat(agent.log()).contains("reason=cninode-missing");

    cniNodes.put(node.name, List.of());
    await().atMost(CONVERGE).until(() -> !Files.exists(node.conflist(n.getFileName())));
  }
}
