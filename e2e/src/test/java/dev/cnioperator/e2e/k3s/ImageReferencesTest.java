package dev.cnioperator.e2e.k3s;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The images {@code ./mvnw -Pimages package} names are the ones the chart installs by default, so
 * pushing them and running {@code helm install} needs no {@code --set}.
 */
class ImageReferencesTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void theImagesProfileBuildsTheImagesTheChartReferences() throws IOException {
    Path root = ToolPaths.repoRoot();
    String pom = Files.readString(root.resolve("pom.xml"));
    JsonNode values = YAML.readTree(root.resolve("charts/cni-operator/values.yaml").toFile());

    // The tag is the chart's appVersion: ReleaseVersionTest.
    String prefix = property(pom, "images.prefix");
    assertThat(chartImage(values.path("operator").path("image")))
        .isEqualTo(prefix + "/" + property(module(root, "operator"), "images.name"));
    assertThat(chartImage(values.path("agent").path("image")))
        .isEqualTo(prefix + "/" + property(module(root, "node-agent"), "images.name"));
  }

  @Test
  void theAgentImageBundlesThePluginsWhereTheAgentLooksByDefault() throws IOException {
    Path root = ToolPaths.repoRoot();
    String agentPom = module(root, "node-agent");
    String runCommand =
        Files.readString(
            root.resolve("node-agent/src/main/java/dev/cnioperator/agent/RunCommand.java"));

    assertThat(agentPom).contains("<into>/opt/cni-node-agent/plugins</into>");
    assertThat(runCommand).contains(":-/opt/cni-node-agent/plugins}");
  }

  private static String module(Path root, String module) throws IOException {
    return Files.readString(root.resolve(module).resolve("pom.xml"));
  }

  private static String chartImage(JsonNode image) {
    return image.path("registry").asText() + "/" + image.path("repository").asText();
  }

  private static String property(String pom, String name) {
    Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]*)</").matcher(pom);
    assertThat(m.find()).as("property %s in the pom", name).isTrue();
    return m.group(1).strip();
  }
}
