package dev.cnioperator.agent.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.observe.AgentMetrics.NodePass;
import dev.cnioperator.agent.observe.AgentMetrics.Restored;
import dev.cnioperator.agent.observe.NetworkMetrics.CleanupOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The names and types Prometheus scrapes, as the exposition spells them: the registry adds units
 * and {@code _total}, so what the code names is not what an alert reads.
 */
class AgentMetricsTest {
  private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");

  private final AgentMetrics metrics =
      new AgentMetrics(Duration.ofSeconds(30), Clock.fixed(NOW, ZoneOffset.UTC));

  /** Every family of the exposition with its type, from its {@code # TYPE} line. */
  private static Map<String, String> families(String exposition) {
    Map<String, String> types = new TreeMap<>();
    exposition
        .lines()
        .filter(l -> l.startsWith("# TYPE "))
        .map(l -> l.substring("# TYPE ".length()).split(" "))
        .forEach(f -> types.put(f[0], f[1]));
    return types;
  }

  private void recordOfEveryKind() {
    metrics.nodePass(NodePass.OK);
    metrics.networks("Conflict", 1);
    metrics.fileRestored(Restored.BINARY);
    metrics.unparsableFiles(2);
    metrics.pluginExec("bridge", "CHECK", Duration.ofMillis(12));
    NetworkMetrics net = metrics.network("dbnet");
    net.checkPass(3, 1, 0);
    net.cleanupPass(CleanupOutcome.BRAKED, 4, 0);
  }

  @Test
  void theAgentsFamiliesFollowPrometheusNaming() {
    recordOfEveryKind();

    Map<String, String> agent = new TreeMap<>(families(metrics.scrape()));
    agent.keySet().removeIf(name -> !name.startsWith("cni_agent_"));
    assertThat(agent)
        .containsExactlyInAnyOrderEntriesOf(
            Map.ofEntries(
                Map.entry("cni_agent_node_passes_total", "counter"),
                Map.entry("cni_agent_node_pass_last_success_timestamp_seconds", "gauge"),
                Map.entry("cni_agent_networks", "gauge"),
                Map.entry("cni_agent_files_restored_total", "counter"),
                Map.entry("cni_agent_multus_unparsable_files", "gauge"),
                Map.entry("cni_agent_plugin_exec_duration_seconds", "histogram"),
                Map.entry("cni_agent_plugin_exec_duration_seconds_max", "gauge"),
                Map.entry("cni_agent_checks_total", "counter"),
                Map.entry("cni_agent_check_passes_total", "counter"),
                Map.entry("cni_agent_failing_attachments", "gauge"),
                Map.entry("cni_agent_unchecked_attachments", "gauge"),
                Map.entry("cni_agent_attachments_on_older_chain", "gauge"),
                Map.entry("cni_agent_ipam_stale_reservations", "gauge"),
                Map.entry("cni_agent_ipam_reclaimed_total", "counter"),
                Map.entry("cni_agent_ipam_cleanup_passes_total", "counter")));
  }

  @Test
  void theJvmAndProcessFamiliesAreInBaseUnitsWithoutDoubledSuffixes() {
    try (AgentMetrics withJvm =
        new AgentMetrics(Duration.ofSeconds(30), Clock.systemUTC()).withJvmAndProcess()) {
      Map<String, String> all = families(withJvm.scrape());

      assertThat(all)
          .containsKeys(
              "jvm_memory_used_bytes",
              "jvm_gc_memory_allocated_bytes_total",
              "jvm_threads_live_threads",
              "jvm_classes_loaded_classes",
              "process_cpu_seconds_total",
              "process_cpu_usage",
              "process_files_open_files",
              "process_files_max_files",
              "process_uptime_seconds",
              "process_start_time_seconds")
          .doesNotContainKey("process_cpu_time_ns_total");
      assertThat(all.keySet())
          .noneMatch(n -> n.contains("_total_total") || n.contains("_seconds_seconds"));
    }
  }

  @Test
  void everyNodePassOutcomeIsExportedFromTheStartAndAnOkOneStampsItsTime() {
    String before = metrics.scrape();
    assertThat(before)
        .contains("cni_agent_node_passes_total{outcome=\"api_unreachable\"} 0.0")
        .contains("cni_agent_node_passes_total{outcome=\"cninode_missing\"} 0.0")
        .contains("cni_agent_node_passes_total{outcome=\"unknown_fields\"} 0.0")
        .contains("cni_agent_node_passes_total{outcome=\"error\"} 0.0")
        .contains("cni_agent_node_passes_total{outcome=\"ok\"} 0.0")
        .contains("cni_agent_node_pass_last_success_timestamp_seconds 0.0");

    metrics.nodePass(NodePass.API_UNREACHABLE);
    assertThat(metrics.scrape()).contains("cni_agent_node_pass_last_success_timestamp_seconds 0.0");
    metrics.nodePass(NodePass.OK);
    assertThat(value(metrics.scrape(), "cni_agent_node_pass_last_success_timestamp_seconds"))
        .isEqualTo(NOW.getEpochSecond());
  }

  /** The value of the series {@code series} (name and labels, as exposed). */
  private static double value(String exposition, String series) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(series + " "))
        .map(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .findFirst()
        .orElseThrow(() -> new AssertionError(series + " not in the exposition"));
  }

  @Test
  void pluginLatencyBucketsRunFromMillisecondsToThePluginTimeout() {
    assertThat(AgentMetrics.pluginBuckets(Duration.ofSeconds(30)))
        .startsWith(Duration.ofMillis(5))
        .endsWith(Duration.ofSeconds(10), Duration.ofSeconds(30));
    assertThat(AgentMetrics.pluginBuckets(Duration.ofSeconds(2)))
        .endsWith(Duration.ofSeconds(1), Duration.ofSeconds(2));

    metrics.pluginExec("bridge", "ADD", Duration.ofMillis(40));
    List<String> buckets =
        metrics
            .scrape()
            .lines()
            .filter(l -> l.startsWith("cni_agent_plugin_exec_duration_seconds_bucket{"))
            .toList();
    assertThat(buckets)
        .hasSize(13)
        .contains(
            "cni_agent_plugin_exec_duration_seconds_bucket{plugin=\"bridge\",verb=\"ADD\",le=\"0.025\"} 0",
            "cni_agent_plugin_exec_duration_seconds_bucket{plugin=\"bridge\",verb=\"ADD\",le=\"0.05\"} 1",
            "cni_agent_plugin_exec_duration_seconds_bucket{plugin=\"bridge\",verb=\"ADD\",le=\"30.0\"} 1");
  }

  @Test
  void aNetworksSeriesAppearWithItsPassesAndGoWhenItIsClosed() {
    NetworkMetrics net = metrics.network("dbnet");
    assertThat(metrics.scrape()).doesNotContain("dbnet");

    net.cleanupPass(CleanupOutcome.SKIPPED, 0, 0);
    assertThat(metrics.scrape())
        .contains("cni_agent_ipam_cleanup_passes_total{network=\"dbnet\",outcome=\"skipped\"} 1.0")
        .as("a skipped pass counted nothing: no stale count to show")
        .doesNotContain("cni_agent_ipam_stale_reservations{");
    net.checkPass(2, 1, 1);
    net.cleanupPass(CleanupOutcome.COMPLETED, 3, 2);
    assertThat(metrics.scrape())
        .contains("cni_agent_checks_total{network=\"dbnet\",result=\"healthy\"} 2.0")
        .contains("cni_agent_failing_attachments{network=\"dbnet\"} 1.0")
        .contains("cni_agent_unchecked_attachments{network=\"dbnet\"} 1.0")
        .contains("cni_agent_ipam_stale_reservations{network=\"dbnet\"} 3.0")
        .contains("cni_agent_ipam_reclaimed_total{network=\"dbnet\"} 2.0");

    net.close();
    net.checkPass(5, 5, 5);
    net.cleanupPass(CleanupOutcome.COMPLETED, 1, 1);
    assertThat(metrics.scrape()).doesNotContain("dbnet");

    metrics.network("dbnet").cleanupPass(CleanupOutcome.COMPLETED, 0, 1);
    assertThat(metrics.scrape())
        .as("a network of the same name starts at zero")
        .contains("cni_agent_ipam_reclaimed_total{network=\"dbnet\"} 1.0");
  }
}
