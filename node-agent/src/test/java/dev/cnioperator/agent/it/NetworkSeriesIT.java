package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Issue 30: a network's series (its {@code network} label) live as long as the agent owns the
 * network. Removed from the CniNode, they leave {@code /metrics} (a deleted network's last values
 * exported for ever kept its alerts firing) while another network's go on; created again under the
 * same name, the network starts series of its own.
 */
class NetworkSeriesIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  /** A bridge network of {@code subnet}, CHECKed every {@code checkSeconds}, with its cleanup. */
  private static NodeNetwork network(String name, int subnet, int checkSeconds) {
    return CniNodes.network(name, 50, subnet, "1.0.0")
        .setUid(UUID.randomUUID().toString())
        .setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(checkSeconds))
        .setIpamCleanup(new IpamCleanup().setEnabled(true).setGracePeriodSeconds(300));
  }

  /** The exposition's lines of the network called {@code network}. */
  private static List<String> seriesOf(String exposition, String network) {
    return exposition.lines().filter(l -> l.contains("network=\"" + network + "\"")).toList();
  }

  /** The value of {@code series} (name and labels, as exposed), empty when it is not exported. */
  private static Optional<Double> value(String exposition, String series) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .map(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .findFirst();
  }

  private static String checkPasses(String network) {
    return "cni_agent_check_passes_total{network=\"" + network + "\"}";
  }

  private static double checkPasses(AgentProcess agent, String network) throws Exception {
    return value(agent.scrape(), checkPasses(network)).orElse(0.0);
  }

  @Test
  void aNetworkRemovedFromTheCniNodeTakesItsSeriesWithIt() throws Exception {
    LocalControlPlane cp = LocalControlPlane.shared();
    CniNodes cniNodes = new CniNodes(cp);
    try (SimulatedNode node = new SimulatedNode("series", ToolPaths.pluginDir())) {
      String gone = TestNames.unique("gone");
      String kept = TestNames.unique("kept");
      NodeNetwork keptNetwork = network(kept, 64, 5);
      cniNodes.put(node.name, List.of(network(gone, 63, 5), keptNetwork));
      try (AgentProcess agent =
          AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log())) {
        await("two CHECK passes of " + gone)
            .atMost(CONVERGE)
            .ignoreExceptions()
            .until(() -> checkPasses(agent, gone) >= 2 && checkPasses(agent, kept) >= 1);
        String owned = agent.scrape();
        assertThat(seriesOf(owned, gone))
            .anyMatch(l -> l.startsWith("cni_agent_checks_total{"))
            .anyMatch(l -> l.startsWith("cni_agent_failing_attachments{"))
            .anyMatch(l -> l.startsWith("cni_agent_unchecked_attachments{"))
            .anyMatch(l -> l.startsWith("cni_agent_ipam_cleanup_passes_total{"))
            .anyMatch(l -> l.startsWith("cni_agent_ipam_reclaimed_total{"));
        // The names as scraped: units and _total once, the JVM's and the process's beside them.
        assertThat(owned)
            .contains("cni_agent_node_passes_total{outcome=\"ok\"}")
            .contains("cni_agent_node_pass_last_success_timestamp_seconds ")
            .contains("cni_agent_plugin_exec_duration_seconds_bucket{plugin=\"bridge\",verb=")
            .contains("jvm_memory_used_bytes{")
            .contains("process_cpu_seconds_total ")
            .contains("process_files_open_files ")
            .doesNotContain("_total_total")
            .doesNotContain("_seconds_seconds");

        cniNodes.put(node.name, List.of(keptNetwork));
        await(gone + "'s series gone from /metrics")
            .atMost(CONVERGE)
            .until(() -> seriesOf(agent.scrape(), gone).isEmpty());
        double keptBefore = checkPasses(agent, kept);
        await("another CHECK pass of " + kept)
            .atMost(CONVERGE)
            .until(() -> checkPasses(agent, kept) > keptBefore);
        assertThat(seriesOf(agent.scrape(), gone)).as("after more passes").isEmpty();

        // Created again: another uid, CHECKed once an hour, so exactly one CHECK pass is due.
        cniNodes.put(node.name, List.of(network(gone, 63, 3600), keptNetwork));
        String reclaimed = "cni_agent_ipam_reclaimed_total{network=\"" + gone + "\"}";
        await("the new " + gone + "'s first CHECK and cleanup passes")
            .atMost(CONVERGE)
            .until(
                () -> {
                  String now = agent.scrape();
                  return value(now, checkPasses(gone)).isPresent()
                      && value(now, reclaimed).isPresent();
                });
        String again = agent.scrape();
        assertThat(value(again, checkPasses(gone)))
            .as("its own count, not the deleted network's 2 or more and then its own")
            .hasValue(1.0);
        assertThat(value(again, reclaimed)).hasValue(0.0);
        assertThat(agent.get("/healthz").statusCode()).isEqualTo(200);
      } finally {
        cniNodes.delete(node.name);
      }
    }
  }
}
