package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.agent.RunCommand;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The chart passes every host path to the agent, but a person running the agent by hand (or a
 * manifest written without the chart) gets its own defaults: both must name the same directories,
 * or an agent started either way would not find the other's manifest.
 */
class ChartAgentDefaultsTest {

  @Test
  void chartHostPathsAreTheAgentsOwnDefaults() throws IOException {
    JsonNode paths =
        new YAMLMapper()
            .readTree(ToolPaths.repoRoot().resolve("charts/cni-operator/values.yaml").toFile())
            .path("agent")
            .path("hostPaths");
    JsonNode containerd = paths.path("profiles").path("containerd");
    // The agent's own defaults: its run command parsed without flags or environment.
    assertThat(System.getenv().keySet())
        .noneMatch(k -> k.startsWith("CNI_") || k.startsWith("AGENT_"));
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs();
    HostPaths agent = run.paths();

    assertThat(containerd.path("cniConfDir").asText()).isEqualTo(agent.confDir().toString());
    assertThat(containerd.path("cniBinDir").asText()).isEqualTo(agent.binDir().toString());
    assertThat(paths.path("stateDir").asText()).isEqualTo(agent.stateDir().toString());
    assertThat(paths.path("cniCacheDir").asText()).isEqualTo(agent.cacheDir().toString());
    assertThat(paths.path("netnsDir").asText()).isEqualTo(agent.netnsDir().toString());
    assertThat(paths.path("multusConfDir").asText()).isEqualTo(agent.multusConfDir().toString());
    assertThat(paths.path("multusCacheDir").asText()).isEqualTo(agent.multusCacheDir().toString());
  }
}
