package dev.cnioperator.operator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** JOSDK's meters as Prometheus scrapes them through the filter, tagged as JOSDK 5.2 tags them. */
class JosdkMeterTagsTest {
  private final PrometheusMeterRegistry registry = registry();

  private static PrometheusMeterRegistry registry() {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    r.config().meterFilter(JosdkMeterTags.ALWAYS_WITH_GROUP);
    return r;
  }

  @Test
  void aCoreResourcesMeterGetsTheGroupItsCustomResourceSiblingHas() {
    registry
        .counter(
            "operator.sdk.reconciliations.success",
            "group",
            "cnioperator.dev",
            "version",
            "v1alpha1",
            "kind",
            "CniNetwork")
        .increment();
    registry
        .counter("operator.sdk.reconciliations.success", "version", "v1", "kind", "Node")
        .increment();
    registry
        .timer(
            "operator.sdk.controllers.execution.reconcile",
            "controller",
            "node",
            "resource.version",
            "v1",
            "resource.kind",
            "Node")
        .record(java.time.Duration.ofMillis(3));

    assertThat(registry.scrape())
        .contains(
            "operator_sdk_reconciliations_success_total{group=\"cnioperator.dev\",kind=\"CniNetwork\",version=\"v1alpha1\"} 1.0")
        .contains(
            "operator_sdk_reconciliations_success_total{group=\"core\",kind=\"Node\",version=\"v1\"} 1.0")
        .contains("controller=\"node\",resource_group=\"core\",resource_kind=\"Node\"");
  }

  @Test
  void aMeterOfNoResourceKindGetsNoGroup() {
    Counter.builder("operator.sdk.controllers.execution.reconcile.success")
        .tags("controller", "cninetwork", "type", "resource")
        .register(registry)
        .increment();

    assertThat(registry.scrape())
        .contains(
            "operator_sdk_controllers_execution_reconcile_success_total{controller=\"cninetwork\",type=\"resource\"} 1.0");
  }
}
