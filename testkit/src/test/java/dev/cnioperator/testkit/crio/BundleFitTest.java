package dev.cnioperator.testkit.crio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filters that fit a CRI-O bundle to the machine, run by the real jq on bundles as CRI-O writes
 * them.
 */
class BundleFitTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** All 41 capabilities (0 to 40) but CAP_SYS_RESOURCE (24), as on this kind of machine. */
  private static final long WITHOUT_SYS_RESOURCE = 0x1fffeffffffL;

  private static final long ALL = 0x1ffffffffffL;

  /** A privileged container's config.json as CRI-O 1.34 writes it (tab-indented, in part). */
  private static final String CONFIG =
      """
      {
      \t"ociVersion": "1.2.1",
      \t"process": {
      \t\t"args": ["/pause"],
      \t\t"capabilities": {
      \t\t\t"bounding": ["CAP_CHOWN", "CAP_SYS_RESOURCE", "CAP_NET_ADMIN"],
      \t\t\t"effective": ["CAP_CHOWN", "CAP_SYS_RESOURCE"]
      \t\t},
      \t\t"oomScoreAdj": -997
      \t},
      \t"linux": {
      \t\t"resources": {
      \t\t\t"hugepageLimits": [{"pageSize": "2MB", "limit": 0}],
      \t\t\t"memory": {"limit": 201326592}
      \t\t}
      \t}
      }
      """;

  @Test
  void aMachineLikeThisOneGetsEveryFitAndTheBundleKeepsAllElse(@TempDir Path dir) throws Exception {
    List<String> filters = BundleFit.filters(WITHOUT_SYS_RESOURCE, WITHOUT_SYS_RESOURCE, true);

    JsonNode fitted = fit(dir, filters, CONFIG);

    assertThat(fitted.at("/process/capabilities/bounding"))
        .extracting(JsonNode::asText)
        .containsExactly("CAP_CHOWN", "CAP_NET_ADMIN");
    assertThat(fitted.at("/process/capabilities/effective"))
        .extracting(JsonNode::asText)
        .containsExactly("CAP_CHOWN");
    assertThat(fitted.at("/process/oomScoreAdj").asInt()).isZero();
    assertThat(fitted.at("/linux/resources").has("hugepageLimits")).isFalse();
    assertThat(fitted.at("/linux/resources/memory/limit").asLong()).isEqualTo(201326592L);
    assertThat(fitted.at("/process/args/0").asText()).isEqualTo("/pause");
  }

  @Test
  void anExecsProcessIsFittedAtItsTopAndAPositiveScoreIsKept(@TempDir Path dir) throws Exception {
    List<String> filters = BundleFit.filters(WITHOUT_SYS_RESOURCE, WITHOUT_SYS_RESOURCE, true);

    JsonNode lowered =
        fit(
            dir,
            filters,
            "{\"args\":[\"sh\"],\"capabilities\":{\"bounding\":[\"CAP_SYS_RESOURCE\"]},"
                + "\"oomScoreAdj\":-5}");
    JsonNode kept = fit(dir, filters, "{\"process\":{\"oomScoreAdj\":1000}}");

    assertThat(lowered.at("/capabilities/bounding")).isEmpty();
    assertThat(lowered.at("/oomScoreAdj").asInt()).isZero();
    assertThat(kept.at("/process/oomScoreAdj").asInt()).isEqualTo(1000);
  }

  @Test
  void aMachineWithEveryCapabilityAndHugetlbMountedNeedsNoWrapper() {
    assertThat(BundleFit.filters(ALL, ALL, false)).isEmpty();
  }

  private static JsonNode fit(Path dir, List<String> filters, String json) throws Exception {
    Path jq = Prerequisites.requireCommand("jq");
    Path file = Files.writeString(Files.createTempFile(dir, "config", ".json"), json);
    String out =
        Commands.run(jq.toString(), BundleFit.program(filters), file.toString())
            .orThrow("jq")
            .stdout();
    return JSON.readTree(out);
  }
}
