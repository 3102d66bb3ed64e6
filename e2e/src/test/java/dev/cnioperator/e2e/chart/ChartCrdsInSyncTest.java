package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The chart installs the CRDs from its own {@code crds/} directory (helm reads only files inside a
 * chart), so that directory must hold exactly the generated top-level {@code crds/}.
 */
class ChartCrdsInSyncTest {
  /** Brings the chart's copies back in step; the failure message names it. */
  static final String SYNC_COMMAND = "charts/cni-operator/hack/sync-crds";

  @Test
  void chartCrdsAreByteForByteTheGeneratedCrds() throws IOException {
    Path root = ToolPaths.repoRoot();
    SortedMap<String, String> generated = yamlFiles(root.resolve("crds"));
    SortedMap<String, String> inChart = yamlFiles(root.resolve("charts/cni-operator/crds"));

    assertThat(generated)
        .as("the generated CRDs in crds/ (api/update-crds writes them)")
        .isNotEmpty();
    List<String> differing = new ArrayList<>();
    generated.forEach(
        (file, content) -> {
          if (!content.equals(inChart.get(file))) {
            differing.add(file + (inChart.containsKey(file) ? " (differs)" : " (missing)"));
          }
        });
    inChart.keySet().stream()
        .filter(file -> !generated.containsKey(file))
        .forEach(file -> differing.add(file + " (not generated any more)"));
    assertThat(differing)
        .as(
            "charts/cni-operator/crds/ out of step with crds/; run from the repository root: %s",
            SYNC_COMMAND)
        .isEmpty();
  }

  @Test
  void chartCrdsAreTheThreeCnioperatorResources() throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    List<String> names = new ArrayList<>();
    for (String content :
        yamlFiles(ToolPaths.repoRoot().resolve("charts/cni-operator/crds")).values()) {
      var crd = yaml.readTree(content);
      assertThat(crd.path("kind").asText()).isEqualTo("CustomResourceDefinition");
      names.add(crd.path("metadata").path("name").asText());
    }
    assertThat(names)
        .containsExactlyInAnyOrder(
            "cninetworks.cnioperator.dev",
            "cninodes.cnioperator.dev",
            "cniplugins.cnioperator.dev");
  }

  private static SortedMap<String, String> yamlFiles(Path dir) throws IOException {
    SortedMap<String, String> files = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return files;
    }
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : list.filter(p -> p.toString().matches(".*\\.ya?ml$")).toList()) {
        files.put(p.getFileName().toString(), Files.readString(p));
      }
    }
    return files;
  }
}
