package dev.cnioperator.operator.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.operator.network.NetworkRenderer;
import dev.cnioperator.operator.network.Rendering;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every CniNetwork manifest in the cni module's {@code corpus/bad/cninetworks} is refused by the
 * operator's own validation ({@link NetworkRenderer}, what the reconciler runs on each generation)
 * with the condition reason and the problems (rule, field under "spec.", message) its {@code
 * .expect} sidecar names, and nothing is rendered. Cases the API server also refuses are here too:
 * the operator must not depend on the CRD's schema being current.
 */
class BadCniNetworkCorpusTest {
  private static final Path CORPUS =
      ToolPaths.repoRoot().resolve("cni/src/test/resources/corpus/bad/cninetworks");

  private final NetworkRenderer renderer = new NetworkRenderer();

  /** One manifest and what its sidecar says the operator must answer. */
  /** A problem the sidecar expects: its rule id, its path and a fragment of its message. */
  record Expected(String rule, String path, String message) {}

  record Case(String name, Path manifest, String reason, List<Expected> problems) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() throws IOException {
    try (Stream<Path> files = Files.list(CORPUS)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(".yaml"))
          .sorted()
          .map(BadCniNetworkCorpusTest::load)
          .toList()
          .stream();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedWithItsReasonAndProblems(Case c) throws IOException {
    CniNetwork network;
    try (InputStream in = Files.newInputStream(c.manifest())) {
      network = Serialization.unmarshal(in, CniNetwork.class);
    }
    network.getMetadata().setGeneration(1L);

    Rendering rendering = renderer.render(network);

    assertThat(rendering).as(c.name() + " must be refused").isInstanceOf(Rendering.Refused.class);
    Rendering.Refused refused = (Rendering.Refused) rendering;
    assertThat(refused.reason().wire()).isEqualTo(c.reason());
    assertThat(refused.problems())
        .as(refused.message())
        .extracting(ConfigProblem::ruleId, ConfigProblem::path)
        .containsExactlyElementsOf(
            c.problems().stream().map(p -> tuple(p.rule(), p.path())).toList());
    for (int i = 0; i < c.problems().size(); i++) {
      assertThat(refused.problems().get(i).message()).contains(c.problems().get(i).message());
    }
    assertThat(refused.message()).startsWith(c.problems().get(0).path() + ": ");
  }

  @Test
  void theCorpusHasTheCasesTheIssueAsksFor() throws IOException {
    assertThat(cases().count()).isGreaterThanOrEqualTo(10);
  }

  /** Reads {@code <case>.expect}: "reason: ..." and "problem: rule | path | fragment" lines. */
  private static Case load(Path manifest) {
    String file = manifest.getFileName().toString();
    String name = file.substring(0, file.length() - ".yaml".length());
    String reason = null;
    List<Expected> problems = new ArrayList<>();
    try {
      for (String line :
          Files.readAllLines(manifest.resolveSibling(name + ".expect"), StandardCharsets.UTF_8)) {
        if (line.startsWith("reason:")) {
          reason = line.substring("reason:".length()).trim();
        } else if (line.startsWith("problem:")) {
          String[] parts = line.substring("problem:".length()).split("\\|", -1);
          problems.add(new Expected(parts[0].trim(), parts[1].trim(), parts[2].trim()));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Case(name, manifest, reason, List.copyOf(problems));
  }
}
