package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The agent fits the footprint the chart gives it. Run with the chart's {@code
 * agent.javaToolOptions}, passed as the DaemonSet passes them (in {@code JAVA_TOOL_OPTIONS}), on
 * the JVM of the test: its heap is bounded where those options bound it, and its resident memory at
 * its peak, through its start, its first pass and a scrape of its metrics, stays below the memory
 * limit of the chart's agent container, which the kernel would otherwise enforce by killing it.
 *
 * <p>How much memory the agent takes and how fast it writes its first conflist are figures,
 * measured by the benchmarks against a floor on the image's own JVM ({@code e2e/bin/bench
 * footprint} and {@code nodepays}, docs/benchmarks.md sections 1 and 8); this test asserts none.
 */
class AgentFootprintIT {
  private static final Duration FIRST_PASS = Duration.ofSeconds(90);

  @Test
  void withTheChartsJvmOptionsTheAgentsHeapIsTheirsAndItsPeakMemoryIsUnderTheChartsLimit()
      throws Exception {
    JsonNode agentValues =
        new YAMLMapper()
            .readTree(ToolPaths.repoRoot().resolve("charts/cni-operator/values.yaml").toFile())
            .path("agent");
    String javaToolOptions = agentValues.path("javaToolOptions").asText();
    long heapBound = maxHeapOf(javaToolOptions);
    long memoryLimit =
        bytesOf(agentValues.path("resources").path("limits").path("memory").asText());

    LocalControlPlane cp = LocalControlPlane.shared();
    CniNodes cniNodes = new CniNodes(cp);
    try (SimulatedNode node = new SimulatedNode("fp", ToolPaths.pluginDir())) {
      NodeNetwork n = CniNodes.network("fp", 50, 51, "1.0.0");
      cniNodes.put(node.name, List.of(n));
      Path conflist = node.conflist(n.getFileName());
      try (AgentProcess agent =
          AgentProcess.start(
              node.name,
              node.paths,
              cp.kubeconfigFile(),
              node.log(),
              List.of(),
              Map.of("JAVA_TOOL_OPTIONS", javaToolOptions))) {
        // Its first pass done and everything it serves served once: the conflist written, ready,
        // a node pass ended well, which /metrics tells (the first scrape binds the JVM's meters).
        await("the agent's conflist " + conflist)
            .atMost(FIRST_PASS)
            .failFast("the agent exited (its log: " + node.log() + ")", () -> !agent.alive())
            .until(() -> Files.exists(conflist));
        await("the agent ready")
            .atMost(FIRST_PASS)
            .ignoreExceptions()
            .until(() -> agent.get("/readyz").statusCode() == 200);
        agent.awaitOkPasses(1);

        assertThat(vmFlag(agent.pid(), "MaxHeapSize"))
            .as("the agent's MaxHeapSize, from the chart's JAVA_TOOL_OPTIONS %s", javaToolOptions)
            .isEqualTo(heapBound);
        long peak = procStatusBytes(agent.pid(), "VmHWM");
        assertThat(peak)
            .as(
                "the agent's peak resident memory (VmHWM), %d MiB, against the chart's limit",
                peak >> 20)
            .isLessThan(memoryLimit);
      } finally {
        cniNodes.delete(node.name);
      }
    }
  }

  /** The {@code -Xmx} of {@code options}, in bytes. */
  private static long maxHeapOf(String options) {
    Matcher m = Pattern.compile("(?:^|\\s)-Xmx(\\d+)([kKmMgG]?)(?:\\s|$)").matcher(options);
    assertThat(m.find()).as("an explicit heap bound (-Xmx) in %s", options).isTrue();
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2).toLowerCase()) {
      case "k" -> n << 10;
      case "m" -> n << 20;
      case "g" -> n << 30;
      default -> n;
    };
  }

  /** A Kubernetes memory quantity with a binary suffix ({@code 192Mi}), in bytes. */
  private static long bytesOf(String quantity) {
    Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi)").matcher(quantity);
    assertThat(m.matches()).as("a memory limit like 192Mi: %s", quantity).isTrue();
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "Ki" -> n << 10;
      case "Mi" -> n << 20;
      default -> n << 30;
    };
  }

  /** A flag of the running JVM {@code pid}, as {@code jcmd VM.flags} shows it. */
  private static long vmFlag(long pid, String flag) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    String flags =
        Commands.run(jcmd.toString(), Long.toString(pid), "VM.flags")
            .orThrow("jcmd " + pid + " VM.flags")
            .stdout();
    Matcher m = Pattern.compile("-XX:" + flag + "=(\\d+)").matcher(flags);
    assertThat(m.find()).as("%s in %s", flag, flags).isTrue();
    return Long.parseLong(m.group(1));
  }

  /** A {@code kB} line of {@code /proc/<pid>/status} ({@code VmRSS}, {@code VmHWM}), in bytes. */
  private static long procStatusBytes(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
      }
    }
    throw new AssertionError("no " + field + " in /proc/" + pid + "/status");
  }
}
