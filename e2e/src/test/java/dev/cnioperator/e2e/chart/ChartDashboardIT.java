package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.runtime.health.JvmMeters;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's Grafana dashboard: every query is PromQL that promtool accepts (written as recording
 * rules and checked with {@code promtool check rules}), and every metric a query selects is one the
 * product exports. {@link #queries()} lists the dashboard's queries with Grafana's variables
 * replaced, for a test against a real Prometheus.
 */
class ChartDashboardIT {
  static final Path DASHBOARD =
      ToolPaths.repoRoot().resolve("charts/cni-operator/dashboards/cni-operator.json");

  /** What the dashboard's variables stand for, in the release ChartAlertRulesIT renders. */
  static final Map<String, String> VARIABLES =
      Map.of(
          "$__rate_interval", "5m",
          "$__range", "1h",
          "$operator_job", "cni-operator-operator",
          "$agent_job", "cni-operator-agent");

  private static final Pattern SELECTED_METRIC = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{");

  @Test
  void theDashboardHasADatasourceVariableAndItsRows() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    JsonNode datasource = null;
    for (JsonNode variable : dashboard.at("/templating/list")) {
      if (variable.path("name").asText().equals("datasource")) {
        datasource = variable;
      }
    }
    assertThat(datasource).as("the datasource variable").isNotNull();
    assertThat(datasource.path("type").asText()).isEqualTo("datasource");
    assertThat(datasource.path("query").asText()).isEqualTo("prometheus");

    List<String> rows = new ArrayList<>();
    panels(dashboard)
        .filter(p -> p.path("type").asText().equals("row"))
        .forEach(p -> rows.add(p.path("title").asText()));
    assertThat(rows).containsExactly("Overview", "Per network", "Agents", "Processes");
    // Every panel queries the chosen data source.
    panels(dashboard)
        .filter(p -> !p.path("type").asText().equals("row"))
        .forEach(
            p ->
                assertThat(p.at("/datasource/uid").asText())
                    .as(p.path("title").asText())
                    .isEqualTo("${datasource}"));
  }

  @Test
  void everyQueryIsPromqlThatPromtoolAccepts(@TempDir Path dir) throws IOException {
    List<String> queries = queries();
    assertThat(queries).hasSizeGreaterThan(20);
    YAMLMapper yaml = new YAMLMapper();
    ObjectNode rules = yaml.createObjectNode();
    ArrayNode group =
        rules.putArray("groups").addObject().put("name", "dashboard").putArray("rules");
    for (int i = 0; i < queries.size(); i++) {
      group.addObject().put("record", "dashboard:query_" + i).put("expr", queries.get(i));
    }
    Path file = dir.resolve("dashboard-rules.yaml");
    yaml.writeValue(file.toFile(), rules);

    CommandResult check =
        Commands.run(ToolPaths.promtool().toString(), "check", "rules", file.toString());
    assertThat(check.exitCode())
        .as(
            "promtool check rules on the dashboard's queries:\n%s%s",
            check.stdout(), check.stderr())
        .isZero();
  }

  @Test
  void everyMetricAQuerySelectsIsOneTheProductExports() throws IOException {
    String agentSources = sources("node-agent/src/main/java");
    String operatorSources = sources("operator/src/main/java");
    Set<String> used = new TreeSet<>();
    for (String query : queries()) {
      Matcher m = SELECTED_METRIC.matcher(query);
      while (m.find()) {
        used.add(m.group(1));
      }
    }
    assertThat(used).contains("cni_agent_node_passes_total", "cni_operator_network_ready");
    for (String metric : used) {
      if (metric.startsWith("cni_agent_")) {
        assertThat(registered(agentSources, metric))
            .as("%s in node-agent's meters", metric)
            .isTrue();
      } else if (metric.startsWith("cni_operator_")) {
        assertThat(registered(operatorSources, metric))
            .as("%s in the operator's meters", metric)
            .isTrue();
      } else {
        assertThat(binderMetrics())
            .as("a JVM/process metric both programs export (JvmMeters) or Prometheus's up")
            .contains(metric);
      }
    }
  }

  /**
   * The series names {@link JvmMeters} exports, which both programs bind, from a scrape of it in
   * this JVM, and Prometheus's own {@code up}.
   */
  private static Set<String> binderMetrics() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(JvmMeters.BASE_UNITS);
    Set<String> names = new TreeSet<>(Set.of("up"));
    try (JvmMeters ignored = new JvmMeters(registry)) {
      for (String line : registry.scrape().split("\n")) {
        if (!line.isBlank() && !line.startsWith("#")) {
          names.add(line.split("[{ ]", 2)[0]);
        }
      }
    }
    return names;
  }

  /** Every query of the dashboard (panels' targets and variables), its variables replaced. */
  static List<String> queries() {
    return queries(VARIABLES);
  }

  /** As {@link #queries()}, with the values of {@code variables} (e.g. a release's job names). */
  static List<String> queries(Map<String, String> variables) {
    JsonNode dashboard;
    try {
      dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> queries = new ArrayList<>();
    panels(dashboard)
        .forEach(
            p ->
                p.path("targets")
                    .forEach(t -> queries.add(substitute(t.path("expr").asText(), variables))));
    for (JsonNode variable : dashboard.at("/templating/list")) {
      String query = variable.at("/query/query").asText();
      Matcher labelValues = Pattern.compile("label_values\\((\\w+), *\\w+\\)").matcher(query);
      if (labelValues.matches()) {
        queries.add(labelValues.group(1) + "{}");
      }
    }
    return queries;
  }

  private static Stream<JsonNode> panels(JsonNode dashboard) {
    List<JsonNode> all = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      all.add(panel);
      panel.path("panels").forEach(all::add);
    }
    return all.stream();
  }

  private static String substitute(String expr, Map<String, String> variables) {
    String out = expr;
    // Longest first: $__rate_interval before $__range.
    for (String name : List.of("$__rate_interval", "$__range", "$operator_job", "$agent_job")) {
      out = out.replace(name, variables.get(name));
    }
    assertThat(out).as("a variable the test does not know in %s", expr).doesNotContain("$");
    return out;
  }

  /**
   * Whether a Micrometer meter that Prometheus exports as {@code metric} is registered in {@code
   * sources}: its name with the suffixes Prometheus appends removed, in dots or underscores.
   */
  private static boolean registered(String sources, String metric) {
    String base = metric;
    while (true) {
      if (sources.contains(quoted(base)) || sources.contains(quoted(base.replace('_', '.')))) {
        return true;
      }
      String stripped = base;
      for (String suffix : List.of("_bucket", "_total", "_seconds")) {
        if (stripped.endsWith(suffix)) {
          stripped = stripped.substring(0, stripped.length() - suffix.length());
          break;
        }
      }
      if (stripped.equals(base)) {
        return false;
      }
      base = stripped;
    }
  }

  private static String quoted(String name) {
    return "\"" + name + "\"";
  }

  private static String sources(String dir) throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.walk(ToolPaths.repoRoot().resolve(dir))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        all.append(Files.readString(file));
      }
    }
    return all.toString();
  }
}
