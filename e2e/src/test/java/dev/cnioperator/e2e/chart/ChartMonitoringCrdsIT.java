package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's PodMonitors and PrometheusRule are created in a real API server that serves the
 * Prometheus Operator's own CRDs (the pinned release e2e/bin/provision fetches), with strict field
 * validation: the schema the Prometheus Operator's users have refuses a misspelt or mistyped field,
 * and prunes nothing of what the chart renders.
 */
class ChartMonitoringCrdsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NAMESPACE = "monitoring-crds-it";

  private static LocalControlPlane controlPlane;
  private static MonitoringObjects rendered;

  @BeforeAll
  static void installTheCrds() {
    controlPlane = LocalControlPlane.shared();
    for (Path crd : ToolPaths.prometheusOperatorCrds()) {
      controlPlane
          .kubectl("apply", "--server-side", "--force-conflicts", "-f", crd.toString())
          .orThrow("kubectl apply " + crd.getFileName());
    }
    controlPlane
        .kubectl(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/podmonitors.monitoring.coreos.com",
            "crd/prometheusrules.monitoring.coreos.com",
            "crd/servicemonitors.monitoring.coreos.com")
        .orThrow("wait for the Prometheus Operator's CRDs");
    controlPlane.kubectl("create", "namespace", NAMESPACE).orThrow("create " + NAMESPACE);
    rendered =
        MonitoringObjects.render(
            Helm.provisioned(),
            NAMESPACE,
            "--set",
            "monitoring.labels.release=kube-prometheus-stack",
            "--set",
            "monitoring.podMonitor.interval=30s",
            "--set",
            "monitoring.podMonitor.scrapeTimeout=10s");
  }

  @AfterAll
  static void removeThem() {
    if (controlPlane == null) {
      return;
    }
    controlPlane.kubectl("delete", "namespace", NAMESPACE, "--wait=false", "--ignore-not-found");
    controlPlane.kubectl(
        "delete",
        "--ignore-not-found",
        "crd",
        "podmonitors.monitoring.coreos.com",
        "prometheusrules.monitoring.coreos.com",
        "servicemonitors.monitoring.coreos.com");
  }

  @Test
  void theRealSchemaAcceptsEveryObjectAndKeepsEveryField() throws Exception {
    assertThat(rendered.podMonitors()).hasSize(2);
    assertThat(rendered.prometheusRule().at("/spec/groups"))
        .extracting(g -> g.path("name").asText())
        .containsExactly("cni-operator.operator", "cni-operator.agent");
    for (JsonNode object : rendered.all()) {
      String ref = ref(object);
      CommandResult created =
          controlPlane.kubectlWithInput(
              JSON.writeValueAsString(object), "create", "--validate=strict", "-f", "-");
      assertThat(created.exitCode()).as("kubectl create %s: %s", ref, created.stderr()).isZero();

      JsonNode stored =
          JSON.readTree(
              controlPlane
                  .kubectl("get", ref, "-n", NAMESPACE, "-o", "json")
                  .orThrow("kubectl get " + ref)
                  .stdout());
      // A structural schema drops fields it does not know: the stored spec is all of the rendered.
      assertThat(stored.path("spec")).as(ref).isEqualTo(object.path("spec"));
      assertThat(stored.at("/metadata/labels/release").asText())
          .as(ref)
          .isEqualTo("kube-prometheus-stack");
    }
  }

  @Test
  void aMisspeltFieldIsRefusedNamingIt() throws Exception {
    ObjectNode podMonitor = rendered.podMonitors().get(0).deepCopy();
    podMonitor.with("metadata").put("name", "misspelt");
    ObjectNode endpoint = (ObjectNode) podMonitor.at("/spec/podMetricsEndpoints/0");
    endpoint.set("prot", endpoint.remove("port"));

    CommandResult refused =
        controlPlane.kubectlWithInput(
            JSON.writeValueAsString(podMonitor), "create", "--validate=strict", "-f", "-");

    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.stderr()).contains("unknown field").contains("prot");
  }

  @Test
  void aRuleWithAMalformedDurationIsRefusedNamingIt() throws Exception {
    ObjectNode rule = rendered.prometheusRule().deepCopy();
    rule.with("metadata").put("name", "malformed");
    ((ObjectNode) rule.at("/spec/groups/0/rules/0")).put("for", "ten minutes");

    CommandResult refused =
        controlPlane.kubectlWithInput(
            JSON.writeValueAsString(rule), "create", "--validate=strict", "-f", "-");

    assertThat(refused.exitCode()).isNotZero();
    assertThat(refused.stderr()).contains("spec.groups[0].rules[0].for");
  }

  @Test
  void theDashboardConfigMapIsStoredWhole() throws Exception {
    JsonNode map =
        RenderedChart.render(
                Helm.provisioned(),
                "--namespace",
                NAMESPACE,
                "--set",
                "monitoring.dashboard.enabled=true")
            .ofKind("ConfigMap")
            .stream()
            .filter(m -> m.at("/metadata/name").asText().endsWith("-dashboard"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no dashboard ConfigMap rendered"));
    String name = map.at("/metadata/name").asText();
    CommandResult created =
        controlPlane.kubectlWithInput(
            JSON.writeValueAsString(map), "create", "--validate=strict", "-f", "-");
    assertThat(created.exitCode()).as("kubectl create %s: %s", name, created.stderr()).isZero();
    JsonNode stored =
        JSON.readTree(
            controlPlane
                .kubectl("get", "configmap", name, "-n", NAMESPACE, "-o", "json")
                .orThrow("kubectl get configmap " + name)
                .stdout());
    assertThat(stored.path("data")).isEqualTo(map.path("data"));
  }

  private static String ref(JsonNode object) {
    return object.path("kind").asText().toLowerCase(java.util.Locale.ROOT)
        + ".monitoring.coreos.com/"
        + object.at("/metadata/name").asText();
  }
}
