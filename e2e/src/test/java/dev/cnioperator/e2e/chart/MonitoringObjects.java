package dev.cnioperator.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.e2e.Helm;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;

/**
 * The chart's monitoring objects (PodMonitors, PrometheusRule) rendered with both switched on, and
 * the alerts of the PrometheusRule.
 */
record MonitoringObjects(RenderedChart chart) {

  /** {@code helm template} into {@code namespace} with both objects on and {@code extraArgs}. */
  static MonitoringObjects render(Helm helm, String namespace, String... extraArgs) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--namespace",
                namespace,
                "--set",
                "monitoring.podMonitor.enabled=true",
                "--set",
                "monitoring.prometheusRule.enabled=true"));
    args.addAll(List.of(extraArgs));
    return new MonitoringObjects(RenderedChart.render(helm, args.toArray(String[]::new)));
  }

  List<JsonNode> podMonitors() {
    return chart.ofKind("PodMonitor");
  }

  JsonNode prometheusRule() {
    List<JsonNode> rules = chart.ofKind("PrometheusRule");
    if (rules.size() != 1) {
      throw new IllegalStateException("expected one PrometheusRule, rendered " + rules.size());
    }
    return rules.get(0);
  }

  /** Every PodMonitor and the PrometheusRule, in the chart's order. */
  List<JsonNode> all() {
    List<JsonNode> all = new ArrayList<>(podMonitors());
    all.add(prometheusRule());
    return all;
  }

  /** The alerting rules of every group of the PrometheusRule. */
  List<JsonNode> alerts() {
    return StreamSupport.stream(prometheusRule().at("/spec/groups").spliterator(), false)
        .flatMap(g -> StreamSupport.stream(g.path("rules").spliterator(), false))
        .filter(r -> r.has("alert"))
        .toList();
  }
}
