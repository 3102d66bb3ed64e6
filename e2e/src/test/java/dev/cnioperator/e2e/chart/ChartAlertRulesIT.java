package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alerting rules through Prometheus's own promtool: {@code promtool check rules} on the
 * groups helm renders, and {@code promtool test rules} with the unit tests in {@code
 * e2e/src/test/resources/monitoring}, which show every alert firing and not firing. Each alert has
 * its runbook section in docs/operations.md.
 */
class ChartAlertRulesIT {
  private static final YAMLMapper YAML = new YAMLMapper();
  private static final Path MONITORING =
      ToolPaths.repoRoot().resolve("e2e/src/test/resources/monitoring");

  /** The unit tests of each group: the operator's alerts and the agent's. */
  private static final List<Path> UNIT_TESTS =
      List.of(
          MONITORING.resolve("operator-alerts.test.yaml"),
          MONITORING.resolve("agent-alerts.test.yaml"));

  private static Helm helm;
  private static MonitoringObjects rendered;

  @BeforeAll
  static void render() {
    helm = Helm.provisioned();
    // The release the unit tests' series and expected annotations are written for.
    rendered =
        MonitoringObjects.render(helm, "cni-system", "--set", "fullnameOverride=cni-operator");
  }

  @Test
  void promtoolAcceptsTheRulesAndTheirUnitTestsPass(@TempDir Path dir) throws IOException {
    Path promtool = ToolPaths.promtool();
    Path rules = dir.resolve("rules.yaml");
    YAML.writeValue(rules.toFile(), rendered.prometheusRule().path("spec"));
    List<String> testArgs = new ArrayList<>(List.of(promtool.toString(), "test", "rules"));
    for (Path unitTests : UNIT_TESTS) {
      testArgs.add(Files.copy(unitTests, dir.resolve(unitTests.getFileName())).toString());
    }

    CommandResult check = Commands.run(promtool.toString(), "check", "rules", rules.toString());
    assertThat(check.exitCode())
        .as("promtool check rules:\n%s%s", check.stdout(), check.stderr())
        .isZero();
    assertThat(check.stdout()).contains("SUCCESS: " + rendered.alerts().size() + " rules found");

    CommandResult test = Commands.run(testArgs.toArray(String[]::new));
    assertThat(test.exitCode())
        .as("promtool test rules:\n%s%s", test.stdout(), test.stderr())
        .isZero();
    assertThat(test.stdout().split("SUCCESS", -1)).as(test.stdout()).hasSize(UNIT_TESTS.size() + 1);
  }

  @Test
  void everyAlertIsShownFiringAndNotFiring() throws IOException {
    Set<String> firing = new TreeSet<>();
    Set<String> holdingBack = new TreeSet<>();
    for (Path file : UNIT_TESTS) {
      for (JsonNode test : YAML.readTree(file.toFile()).path("tests")) {
        for (JsonNode evaluation : test.path("alert_rule_test")) {
          String alert = evaluation.path("alertname").asText();
          (evaluation.path("exp_alerts").isEmpty() ? holdingBack : firing).add(alert);
        }
      }
    }

    Set<String> alerts = new TreeSet<>(alertNames());
    assertThat(firing).as("alerts some unit test fires").isEqualTo(alerts);
    assertThat(holdingBack).as("alerts some unit test expects silent").isEqualTo(alerts);
  }

  @Test
  void everyAlertHasSeveritySummaryDescriptionAndARunbookSection() throws IOException {
    String operations = Files.readString(ToolPaths.repoRoot().resolve("docs/operations.md"));
    List<String> headings = operations.lines().filter(l -> l.startsWith("### ")).toList();

    for (JsonNode alert : rendered.alerts()) {
      String name = alert.path("alert").asText();
      assertThat(alert.at("/labels/severity").asText()).as(name).isIn("warning", "critical");
      assertThat(alert.at("/annotations/summary").asText()).as(name).isNotBlank();
      assertThat(alert.at("/annotations/description").asText()).as(name).isNotBlank();
      // What the series carry, the description names: the network, the node, or the pod.
      String expr = alert.path("expr").asText();
      for (String label : List.of("network", "node", "pod")) {
        if (expr.matches("(?s).*\\bby \\([^)]*\\b" + label + "\\b.*")) {
          assertThat(alert.at("/annotations/description").asText())
              .as(name)
              .contains("{{ $labels." + label + " }}");
        }
      }
      assertThat(alert.at("/annotations/runbook_url").asText())
          .as(name)
          .isEqualTo(
              "https://github.com/cni-operator/cni-operator/blob/main/docs/operations.md#"
                  + name.toLowerCase(Locale.ROOT));
      assertThat(headings).as("docs/operations.md sections").contains("### " + name);
    }
  }

  @Test
  void everyAlertHasItsDurationsInValuesAndNoEntryNamesAMissingAlert() throws IOException {
    JsonNode alerts =
        YAML.readTree(Helm.chartDir().resolve("values.yaml").toFile())
            .at("/monitoring/prometheusRule/alerts");
    Set<String> configured = new TreeSet<>();
    alerts.fieldNames().forEachRemaining(configured::add);

    assertThat(configured).isEqualTo(new TreeSet<>(alertNames()));
    for (JsonNode alert : rendered.alerts()) {
      String name = alert.path("alert").asText();
      JsonNode values = alerts.path(name);
      assertThat(values.path("enabled").asBoolean()).as(name).isTrue();
      assertThat(alert.path("for").asText("0s")).as(name).isEqualTo(values.path("for").asText());
      if (values.has("window")) {
        assertThat(alert.path("expr").asText())
            .as(name)
            .contains("[" + values.path("window").asText() + "]");
      } else {
        assertThat(alert.path("expr").asText())
            .as(name)
            .doesNotContainPattern("\\[[0-9]+[a-z]+\\]");
      }
    }
  }

  private static List<String> alertNames() {
    List<String> names = new ArrayList<>();
    rendered.alerts().forEach(a -> names.add(a.path("alert").asText()));
    return names;
  }
}
