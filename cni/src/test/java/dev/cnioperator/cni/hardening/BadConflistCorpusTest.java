package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.groups.Tuple.tuple;

import dev.cnioperator.cni.config.CniConfigException;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every invalid configuration in {@code corpus/bad/conflists} ({@code .conflist}, or a legacy
 * {@code .conf}) is refused with exactly the code and problems (rule, path, message) its sidecar
 * names, and the message names the file.
 */
class BadConflistCorpusTest {

  static Stream<CorpusCase> cases() {
    return CorpusCase.all("conflists");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedWithItsExpectedProblems(CorpusCase c) {
    byte[] input = c.bytes();
    String source = c.inputName();

    CniConfigException refused =
        catchThrowableOfType(
            CniConfigException.class,
            () -> {
              if (source.endsWith(".conf")) {
                NetworkConfigList.parseLegacyConf(input, source);
              } else {
                NetworkConfigList.parse(input, source);
              }
            });

    assertThat(refused).as(c.name() + " must be refused").isNotNull();
    assertThat(refused.code()).as(refused.getMessage()).isEqualTo(c.code());
    assertThat(refused.getMessage()).contains(source);
    List<ConfigProblem> problems = refused.problems();
    assertThat(problems)
        .as(refused.getMessage())
        .extracting(ConfigProblem::ruleId, ConfigProblem::path)
        .containsExactlyElementsOf(
            c.problems().stream().map(p -> tuple(p.rule(), p.path())).toList());
    for (int i = 0; i < problems.size(); i++) {
      assertThat(problems.get(i).message()).contains(c.problems().get(i).message());
    }
    // Even a 10 MiB value is quoted only in part: an error must stay readable in a log line.
    assertThat(refused.getMessage().length()).isLessThan(2_000);
  }

  @Test
  void theCorpusHasTheCasesTheIssueAsksFor() {
    assertThat(cases().count()).isGreaterThanOrEqualTo(15);
  }
}
