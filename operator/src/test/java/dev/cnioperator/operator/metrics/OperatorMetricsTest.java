package dev.cnioperator.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.NodeCounts;
import dev.cnioperator.operator.metrics.OperatorMetrics.NetworkHealth;
import dev.cnioperator.operator.rollout.RolloutOutcome;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The operator's meters as Prometheus scrapes them: names, labels and values. */
class OperatorMetricsTest {
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final AtomicBoolean leading = new AtomicBoolean();
  private final OperatorMetrics metrics = new OperatorMetrics(registry, leading::get);

  @Test
  void aNetworksConditionsAndNodeCountsAreItsOwnSeries() {
    metrics.networkObserved("dbnet", new NetworkHealth(true, false, true), counts(3, 2, 1));
    metrics.networkObserved("webnet", new NetworkHealth(true, true, false), counts(2, 2, 2));

    assertThat(registry.scrape())
        .contains("cni_operator_network_accepted{network=\"dbnet\"} 1.0")
        .contains("cni_operator_network_ready{network=\"dbnet\"} 0.0")
        .contains("cni_operator_network_degraded{network=\"dbnet\"} 1.0")
        .contains("cni_operator_network_nodes_selected{network=\"dbnet\"} 3.0")
        .contains("cni_operator_network_nodes_applied{network=\"dbnet\"} 2.0")
        .contains("cni_operator_network_nodes_healthy{network=\"dbnet\"} 1.0")
        .contains("cni_operator_network_ready{network=\"webnet\"} 1.0")
        .contains("# TYPE cni_operator_network_ready gauge");
  }

  @Test
  void theNextReconcileReplacesWhatTheLastSaid() {
    metrics.networkObserved("dbnet", new NetworkHealth(true, false, false), counts(3, 0, 0));
    metrics.networkObserved("dbnet", new NetworkHealth(true, true, false), counts(3, 3, 3));

    assertThat(registry.scrape())
        .contains("cni_operator_network_ready{network=\"dbnet\"} 1.0")
        .contains("cni_operator_network_nodes_applied{network=\"dbnet\"} 3.0");
  }

  @Test
  void rolloutsAreCountedByNetworkAndOutcome() {
    metrics.networkObserved("dbnet", new NetworkHealth(true, true, false), counts(1, 1, 1));
    metrics.rolloutReached("dbnet", RolloutOutcome.COMPLETED);
    metrics.rolloutReached("dbnet", RolloutOutcome.COMPLETED);
    metrics.rolloutReached("dbnet", RolloutOutcome.ROLLED_BACK);

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains("# TYPE cni_operator_rollouts_total counter")
        .contains("cni_operator_rollouts_total{network=\"dbnet\",outcome=\"completed\"} 2.0")
        .contains("cni_operator_rollouts_total{network=\"dbnet\",outcome=\"rolled_back\"} 1.0")
        .doesNotContain("outcome=\"paused\"")
        .doesNotContain("_total_total");
  }

  @Test
  void aDeletedNetworksSeriesGoAndTheOthersStay() {
    metrics.networkObserved("dbnet", new NetworkHealth(true, true, false), counts(1, 1, 1));
    metrics.rolloutReached("dbnet", RolloutOutcome.PAUSED);
    metrics.networkObserved("webnet", new NetworkHealth(false, false, false), counts(0, 0, 0));
    metrics.rolloutReached("webnet", RolloutOutcome.COMPLETED);

    metrics.networkGone("dbnet");

    String scrape = registry.scrape();
    assertThat(scrape).doesNotContain("network=\"dbnet\"");
    assertThat(scrape)
        .contains("cni_operator_network_accepted{network=\"webnet\"} 0.0")
        .contains("cni_operator_rollouts_total{network=\"webnet\",outcome=\"completed\"} 1.0");
  }

  @Test
  void aNetworkCreatedAgainAfterItsDeletionStartsFromNothing() {
    metrics.networkObserved("dbnet", new NetworkHealth(true, true, false), counts(1, 1, 1));
    metrics.rolloutReached("dbnet", RolloutOutcome.COMPLETED);
    metrics.networkGone("dbnet");

    metrics.networkObserved("dbnet", new NetworkHealth(true, false, false), counts(2, 0, 0));

    assertThat(registry.scrape())
        .contains("cni_operator_network_ready{network=\"dbnet\"} 0.0")
        .contains("cni_operator_network_nodes_selected{network=\"dbnet\"} 2.0")
        .doesNotContain("cni_operator_rollouts_total{network=\"dbnet\"");
  }

  @Test
  void theLeaderGaugeSaysWhetherThisReplicaLeadsNow() {
    assertThat(registry.scrape()).contains("cni_operator_leader 0.0");
    leading.set(true);
    assertThat(registry.scrape()).contains("cni_operator_leader 1.0");
  }

  @Test
  void writesAreCountersWithOneTotalSuffix() {
    metrics.cniNodeWritten();
    metrics.statusWritten();
    metrics.statusWritten();

    assertThat(registry.scrape())
        .contains("cni_operator_cninode_writes_total 1.0")
        .contains("cni_operator_status_writes_total 2.0")
        .doesNotContain("_total_total");
  }

  private static NodeCounts counts(int selected, int applied, int healthy) {
    return new NodeCounts().setSelected(selected).setApplied(applied).setHealthy(healthy);
  }
}
