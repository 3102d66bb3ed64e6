package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every place that enumerates the host-path profiles names the same ones: values.yaml's profiles,
 * the schema (the accepted names, the required and the allowed entries of profiles), the chart
 * README's table and docs/install.md's. A profile added to one and not the others is either refused
 * by the schema or undocumented. helm is not needed: ChartLintIT renders each profile.
 */
class ChartProfilesTest {
  private static final Path ROOT = ToolPaths.repoRoot();
  private static final Path CHART = ROOT.resolve("charts/cni-operator");

  /** generic is the former name of containerd: accepted, with no entry of its own. */
  private static final String FORMER_NAME = "generic";

  @Test
  void valuesSchemaAndDocsNameTheSameProfiles() throws IOException {
    List<String> profiles = fieldNames(valuesHostPaths().path("profiles"));
    JsonNode schema =
        new ObjectMapper()
            .readTree(CHART.resolve("values.schema.json").toFile())
            .path("properties")
            .path("agent")
            .path("properties")
            .path("hostPaths")
            .path("properties");
    List<String> accepted = texts(schema.path("profile").path("enum"));
    accepted.remove(FORMER_NAME);
    String chartReadme = Files.readString(CHART.resolve("README.md"));
    String install = Files.readString(ROOT.resolve("docs/install.md"));

    assertThat(profiles).contains("containerd", "crio", "openshift");
    assertThat(accepted).containsExactlyInAnyOrderElementsOf(profiles);
    assertThat(texts(schema.path("profiles").path("required")))
        .containsExactlyInAnyOrderElementsOf(profiles);
    assertThat(fieldNames(schema.path("profiles").path("properties")))
        .containsExactlyInAnyOrderElementsOf(profiles);
    for (String profile : profiles) {
      assertThat(chartReadme).as("the chart README's table").contains("\n| `" + profile + "` ");
      assertThat(install).as("docs/install.md's table").contains(" | `" + profile + "`");
    }
  }

  @Test
  void openshiftProfileIsCrioWithOpenShiftsDirs() throws IOException {
    JsonNode openshift = valuesHostPaths().path("profiles").path("openshift");

    // machine-config-operator's crio.conf.d/00-default (network_dir, the first of plugin_dirs);
    // the kubelet's --container-runtime-endpoint. The chart README cites each.
    assertThat(openshift.path("cniConfDir").asText()).isEqualTo("/etc/kubernetes/cni/net.d");
    assertThat(openshift.path("cniBinDir").asText()).isEqualTo("/var/lib/cni/bin");
    assertThat(openshift.path("criSocket").asText()).isEqualTo("/var/run/crio/crio.sock");
  }

  private static JsonNode valuesHostPaths() throws IOException {
    return new YAMLMapper()
        .readTree(CHART.resolve("values.yaml").toFile())
        .path("agent")
        .path("hostPaths");
  }

  private static List<String> fieldNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    for (Map.Entry<String, JsonNode> field : object.properties()) {
      names.add(field.getKey());
    }
    return names;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }
}
