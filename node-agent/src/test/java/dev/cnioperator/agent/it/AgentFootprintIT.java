package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Benchmark, not a gate: prints the agent's time from process start to its first conflist on disk
 * and its resident memory when idle, and checks the health endpoints answer.
 */
class AgentFootprintIT {

  @Test
  void printsStartToFirstConflistAndIdleResidentMemory() throws Exception {
    LocalControlPlane cp = LocalControlPlane.shared();
    CniNodes cniNodes = new CniNodes(cp);
    try (SimulatedNode node = new SimulatedNode("fp", ToolPaths.pluginDir())) {
      NodeNetwork n = CniNodes.network("fp", 50, 51, "1.0.0");
      cniNodes.put(node.name, List.of(n));
      // Binaries already in place, as on a node the agent has served before.
      for (String plugin : List.of("bridge", "host-local")) {
        Files.copy(ToolPaths.pluginDir().resolve(plugin), node.paths.binDir().resolve(plugin));
      }
      Path conflist = node.conflist(n.getFileName());
      try (AgentProcess agent =
          AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log())) {
        while (!Files.exists(conflist)) {
          assertThat(agent.alive()).isTrue();
          Thread.sleep(5);
          assertThat(System.nanoTime() - agent.startedNanos)
              .isLessThan(Duration.ofSeconds(60).toNanos());
        }
        long startMillis = (System.nanoTime() - agent.startedNanos) / 1_000_000;
        await().atMost(Duration.ofSeconds(30)).until(() -> agent.port() > 0);
        HttpClient http = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + agent.port();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> get(http, base + "/readyz").statusCode() == 200);
        assertThat(get(http, base + "/healthz").statusCode()).isEqualTo(200);
        assertThat(get(http, base + "/metrics").body()).contains("cni_agent_node_passes_total");
        Thread.sleep(15_000);
        long rssKib = rssKib(agent.pid());
        if (System.getProperty("agent.extraJvmArgs", "").contains("NativeMemoryTracking")) {
          System.out.println(
              dev.cnioperator.testkit.Commands.run(
                      "jcmd", Long.toString(agent.pid()), "VM.native_memory", "summary")
                  .stdout());
        }
        System.out.printf(
            "agent-footprint: start-to-first-conflist=%d ms idle-rss=%.1f MiB (java %s %s)%n",
            startMillis,
            rssKib / 1024.0,
            String.join(" ", AgentProcess.JVM_FLAGS),
            System.getProperty("agent.extraJvmArgs", ""));
        assertThat(rssKib).isPositive();
      } finally {
        cniNodes.delete(node.name);
      }
    }
  }

  private static HttpResponse<String> get(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static long rssKib(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }
}
