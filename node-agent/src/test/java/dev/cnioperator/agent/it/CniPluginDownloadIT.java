package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A CniPlugin binary is downloaded and verified; a sha256 mismatch is refused, the old one stays.
 */
class CniPluginDownloadIT {
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private HttpServer server;
  private byte[] reference;
  private byte[] debian;
  private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    cniNodes = new CniNodes(LocalControlPlane.shared());
    node = new SimulatedNode("dl", ToolPaths.pluginDir());
    reference = Files.readAllBytes(ToolPaths.pluginDir().resolve("tuning"));
    debian = Files.readAllBytes(ToolPaths.debianPluginDir().resolve("tuning"));
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    serve("/reference/tuning", reference);
    serve("/debian/tuning", debian);
    server.start();
  }

  private void serve(String path, byte[] body) {
    server.createContext(
        path,
        ex -> {
          requests.computeIfAbsent(path, k -> new AtomicInteger()).incrementAndGet();
          ex.sendResponseHeaders(200, body.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
          }
        });
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    server.stop(0);
    cniNodes.delete(node.name);
    node.close();
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private static NodeNetwork tuned() {
    return CniNodes.network(
        "tuned",
        50,
        "{\"cniVersion\":\"1.0.0\",\"name\":\"tuned\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"cd0\","
            + "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200.42.0/24\"}},{\"type\":\"tuning\"}]}");
  }

  private static NodePlugin tuning(String url, String sha256) {
    return new NodePlugin().setName("tuning").setSource("my-tuning").setUrl(url).setSha256(sha256);
  }

  @Test
  void verifiedDownloadIsInstalledAndAMismatchIsRefusedKeepingTheOldBinary() throws Exception {
    NodeNetwork n = tuned();
    Path binary = node.paths.binDir().resolve("tuning");
    cniNodes.put(
        node.name, List.of(n), List.of(tuning(url("/reference/tuning"), Sha256.hex(reference))));
    agent =
        AgentProcess.start(
            node.name, node.paths, cniNodes.controlPlane.kubeconfigFile(), node.log());
    await().atMost(CONVERGE).until(() -> Files.exists(node.conflist(n.getFileName())));
    assertThat(Files.readAllBytes(binary)).isEqualTo(reference);
    assertThat(Files.isExecutable(binary)).isTrue();
    // The status follows the conflist in the same pass; on a loaded machine it can come a moment
    // later, and the status read below must find the network reported.
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(
            () ->
                NodeAgentLifecycleIT.state(cniNodes.get(node.name), "tuned")
                    == NetworkState.Applied);

    // The spec now wants another binary, but the server hands out bytes that do not match.
    String wanted = "0".repeat(64);
    cniNodes.put(node.name, List.of(n), List.of(tuning(url("/debian/tuning"), wanted)));
    await()
        .atMost(CONVERGE)
        .untilAsserted(
            () -> {
              NodeNetworkStatus s =
                  NodeAgentLifecycleIT.status(cniNodes.get(node.name), "tuned").orElseThrow();
              assertThat(s.getState()).isEqualTo(NetworkState.Failed);
              assertThat(s.getMessage()).contains("sha256 " + Sha256.hex(debian)).contains(wanted);
            });
    assertThat(Files.readAllBytes(binary)).isEqualTo(reference);
    assertThat(agent.log()).contains("event=plugin-refused plugin=tuning");
    // The conflist the node had stays, since the old binary still serves it.
    assertThat(Files.readString(node.conflist(n.getFileName()))).isEqualTo(n.getContent());
    assertThat(node.paths.binDir().toFile().list())
        .containsExactlyInAnyOrder("bridge", "host-local", "tuning");

    // Passes go on (the scheduled one every 2 s in these tests), but the refused binary waits out
    // its back-off and the status says when it is tried next.
    agent.awaitOkPasses(3);
    assertThat(requests.get("/debian/tuning")).hasValue(1);
    assertThat(agent.log().split("event=plugin-refused plugin=tuning", -1)).hasSize(2);
    assertThat(
            NodeAgentLifecycleIT.status(cniNodes.get(node.name), "tuned")
                .orElseThrow()
                .getMessage())
        .contains("attempt 1; next attempt after");
  }

  @Test
  void firstDownloadWithAMismatchLeavesNoBinaryAndWritesNoConflist() throws Exception {
    NodeNetwork n = tuned();
    cniNodes.put(
        node.name, List.of(n), List.of(tuning(url("/debian/tuning"), Sha256.hex(reference))));
    agent =
        AgentProcess.start(
            node.name, node.paths, cniNodes.controlPlane.kubeconfigFile(), node.log());
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                NodeAgentLifecycleIT.state(cniNodes.get(node.name), "tuned")
                    == NetworkState.Failed);
    assertThat(node.paths.binDir().resolve("tuning")).doesNotExist();
    assertThat(node.conflist(n.getFileName())).doesNotExist();
  }
}
