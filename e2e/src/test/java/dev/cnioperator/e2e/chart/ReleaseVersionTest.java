package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The product's version is the root pom's {@code revision} and nothing else: every module and the
 * images take it from there, and Chart.yaml's literal copies (helm reads no pom) equal it.
 * bin/release writes all of them; a hand edit of one fails here.
 */
class ReleaseVersionTest {
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
  private static final Pattern PARENT_VERSION =
      Pattern.compile(
          "<parent>\\s*<groupId>dev\\.cnioperator</groupId>\\s*"
              + "<artifactId>cni-operator-parent</artifactId>\\s*<version>([^<]*)</version>");

  @Test
  void theChartsVersionAndAppVersionAreTheRootPomsRevision() throws IOException {
    Path root = ToolPaths.repoRoot();
    String revision = property(Files.readString(root.resolve("pom.xml")), "revision");
    JsonNode chart = chart(root);

    assertThat(revision).matches("\\d+\\.\\d+\\.\\d+(-[0-9A-Za-z.-]+)?");
    assertThat(chart.path("version").asText())
        .as("Chart.yaml version (bin/release writes it from the root pom's revision)")
        .isEqualTo(revision);
    assertThat(chart.path("appVersion").asText())
        .as("Chart.yaml appVersion, the images' tag (bin/release writes it)")
        .isEqualTo(revision);
  }

  @Test
  void everyModuleAndTheImagesTakeTheVersionFromTheRevision() throws IOException {
    Path root = ToolPaths.repoRoot();
    String pom = Files.readString(root.resolve("pom.xml"));

    assertThat(pom)
        .contains("<artifactId>cni-operator-parent</artifactId>\n  <version>${revision}");
    assertThat(property(pom, "images.tag")).isEqualTo("${revision}");
    List<String> modules = new ArrayList<>();
    for (Matcher m = MODULE.matcher(pom); m.find(); ) {
      modules.add(m.group(1));
    }
    assertThat(modules).contains("operator", "node-agent");
    for (String module : modules) {
      Matcher parent =
          PARENT_VERSION.matcher(Files.readString(root.resolve(module).resolve("pom.xml")));
      assertThat(parent.find()).as("%s/pom.xml names the parent", module).isTrue();
      assertThat(parent.group(1))
          .as("%s/pom.xml's parent version", module)
          .isEqualTo("${revision}");
    }
  }

  @Test
  void theImagesSourceLabelIsTheChartsSource() throws IOException {
    Path root = ToolPaths.repoRoot();
    Matcher scm =
        Pattern.compile("<scm[^>]*>.*?<url>([^<]+)</url>.*?</scm>", Pattern.DOTALL)
            .matcher(Files.readString(root.resolve("pom.xml")));
    assertThat(scm.find()).as("<scm><url> in the root pom").isTrue();
    assertThat(scm.group(1)).isEqualTo(chart(root).path("sources").path(0).asText());
  }

  private static JsonNode chart(Path root) throws IOException {
    return new YAMLMapper().readTree(root.resolve("charts/cni-operator/Chart.yaml").toFile());
  }

  private static String property(String pom, String name) {
    Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]*)</").matcher(pom);
    assertThat(m.find()).as("property %s in the root pom", name).isTrue();
    return m.group(1).strip();
  }
}
