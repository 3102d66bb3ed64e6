package dev.cnioperator.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cnioperator.cni.config.ConfigProblem;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorsTest {

  private static LabelSelector expression(String key, String operator, String... values) {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey(key)
        .withOperator(operator)
        .withValues(values)
        .endMatchExpression()
        .build();
  }

  @Test
  void absentOrEmptySelectorSelectsEveryNode() {
    assertThat(LabelSelectors.matches(null, Map.of("a", "b"))).isTrue();
    assertThat(LabelSelectors.matches(new LabelSelector(), Map.of())).isTrue();
  }

  @Test
  void matchLabelsNeedEveryPair() {
    LabelSelector s =
        new LabelSelectorBuilder()
            .addToMatchLabels("zone", "a")
            .addToMatchLabels("pool", "db")
            .build();

    assertThat(LabelSelectors.matches(s, Map.of("zone", "a", "pool", "db", "x", "y"))).isTrue();
    assertThat(LabelSelectors.matches(s, Map.of("zone", "a"))).isFalse();
    assertThat(LabelSelectors.matches(s, null)).isFalse();
  }

  @Test
  void expressionsFollowKubernetesSemantics() {
    Map<String, String> node = Map.of("zone", "a");

    assertThat(LabelSelectors.matches(expression("zone", "In", "a", "b"), node)).isTrue();
    assertThat(LabelSelectors.matches(expression("zone", "In", "b"), node)).isFalse();
    assertThat(LabelSelectors.matches(expression("zone", "NotIn", "b"), node)).isTrue();
    assertThat(LabelSelectors.matches(expression("rack", "NotIn", "b"), node)).isTrue();
    assertThat(LabelSelectors.matches(expression("zone", "Exists"), node)).isTrue();
    assertThat(LabelSelectors.matches(expression("zone", "DoesNotExist"), node)).isFalse();
    assertThat(LabelSelectors.matches(expression("zone", "Near", "a"), node)).isFalse();
  }

  @Test
  void validationNamesEachBadPart() {
    assertThat(LabelSelectors.validate(expression("zone", "Near", "a"), "spec.nodeSelector"))
        .extracting(ConfigProblem::path, ConfigProblem::ruleId)
        .containsExactly(
            tuple("spec.nodeSelector.matchExpressions[0].operator", "selector-operator"));
    assertThat(LabelSelectors.validate(expression("zone", "Exists", "a"), "s"))
        .extracting(ConfigProblem::message)
        .containsExactly("operator Exists takes no values");
    assertThat(
            LabelSelectors.validate(
                new LabelSelectorBuilder().addToMatchLabels("example.com/zone", "a-1").build(),
                "s"))
        .isEmpty();
    assertThat(
            LabelSelectors.validate(
                new LabelSelectorBuilder().addToMatchLabels("Bad_Prefix/zone", "a").build(), "s"))
        .extracting(ConfigProblem::ruleId)
        .containsExactly("label-key");
    assertThat(
            LabelSelectors.validate(
                new LabelSelectorBuilder().addToMatchLabels("zone", "-a").build(), "s"))
        .extracting(ConfigProblem::path)
        .containsExactly("s.matchLabels[zone]");
  }
}
