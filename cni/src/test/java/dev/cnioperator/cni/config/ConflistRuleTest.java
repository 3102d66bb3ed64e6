package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The rule ids people see, and which of them a cached or foreign configuration may break. */
class ConflistRuleTest {

  @Test
  void everyRuleHasItsOwnId() {
    assertThat(Arrays.stream(ConflistRule.values()).map(ConflistRule::id))
        .doesNotHaveDuplicates()
        .allMatch(id -> id.matches("[a-z]+(-[a-z]+)*"));
  }

  @Test
  void executableDropsExactlyThePolicyRules() {
    assertThat(
            Arrays.stream(ConflistRule.values())
                .filter(r -> !ValidationLevel.EXECUTABLE.refuses(r))
                .map(ConflistRule::id)
                .collect(Collectors.toSet()))
        .containsExactlyInAnyOrder(
            "reserved-key",
            "dns-shape",
            "version-mismatch",
            "name-mismatch",
            "check-version",
            "gc-version",
            "cni-versions",
            "missing-ipam-type");
    assertThat(ConflistRule.values()).allMatch(ValidationLevel.FULL::refuses);
  }

  @Test
  void aRuleOfAnotherProgramIsNeverDropped() {
    ConfigRule foreign = () -> "reserved-key";

    assertThat(ValidationLevel.EXECUTABLE.refuses(foreign)).isTrue();
  }
}
