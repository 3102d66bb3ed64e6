package dev.cnioperator.operator.multus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.MultusAttachment;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChosenNamespacesTest {

  static Namespace namespace(String name, Map<String, String> labels) {
    return new NamespaceBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .build();
  }

  private static Namespace terminating(String name, Map<String, String> labels) {
    Namespace n = namespace(name, labels);
    n.getMetadata().setDeletionTimestamp("2026-11-26T10:00:00Z");
    return n;
  }

  /** A selector the API server takes but Kubernetes refuses: no such operator. */
  static LabelSelector refusedSelector() {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey("multus")
        .withOperator("Equals")
        .withValues("yes")
        .endMatchExpression()
        .build();
  }

  private static final List<Namespace> CLUSTER =
      List.of(
          namespace("shop", Map.of()),
          namespace("db", Map.of("multus", "yes")),
          namespace("web", Map.of("multus", "yes")),
          namespace("kube-system", Map.of()),
          terminating("old", Map.of("multus", "yes")));

  @Test
  void namedAndSelectedNamespacesThatExistAreChosenTogether() {
    ChosenNamespaces chosen =
        ChosenNamespaces.of(
            new MultusAttachment()
                .setNamespaces(List.of("shop", "db"))
                .setNamespaceSelector(
                    new LabelSelectorBuilder().addToMatchLabels("multus", "yes").build()),
            CLUSTER);

    assertThat(chosen.namespaces()).containsExactly("db", "shop", "web");
    assertThat(chosen.waiting()).isEmpty();
    assertThat(chosen.invalid()).isEmpty();
    assertThat(chosen.keepsOthers()).isFalse();
  }

  @Test
  void aNamedNamespaceThatDoesNotExistOrIsBeingDeletedIsWaitedFor() {
    ChosenNamespaces chosen =
        ChosenNamespaces.of(
            new MultusAttachment().setNamespaces(List.of("later", "old", "shop")), CLUSTER);

    assertThat(chosen.namespaces()).containsExactly("shop");
    assertThat(chosen.waiting()).containsExactly("later", "old");
  }

  @Test
  void aNamespaceBeingDeletedIsNotSelected() {
    ChosenNamespaces chosen =
        ChosenNamespaces.of(
            new MultusAttachment()
                .setNamespaceSelector(
                    new LabelSelectorBuilder().addToMatchLabels("multus", "yes").build()),
            CLUSTER);

    assertThat(chosen.namespaces()).containsExactly("db", "web");
  }

  @Test
  void aNameThatCannotBeANamespaceIsInvalidNotWaitedFor() {
    ChosenNamespaces chosen =
        ChosenNamespaces.of(
            new MultusAttachment()
                .setNamespaces(List.of("Shop", "my_ns", "a".repeat(64), "shop", "-x")),
            CLUSTER);

    assertThat(chosen.namespaces()).containsExactly("shop");
    assertThat(chosen.invalid()).containsExactlyInAnyOrder("Shop", "my_ns", "a".repeat(64), "-x");
    assertThat(chosen.waiting()).isEmpty();
  }

  @Test
  void aRefusedSelectorChoosesNothingAndKeepsWhatItChoseBefore() {
    ChosenNamespaces chosen =
        ChosenNamespaces.of(
            new MultusAttachment()
                .setNamespaces(List.of("shop"))
                .setNamespaceSelector(refusedSelector()),
            CLUSTER);

    assertThat(chosen.namespaces()).containsExactly("shop");
    assertThat(chosen.keepsOthers()).isTrue();
    assertThat(chosen.selectorProblems())
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.path())
                    .isEqualTo(
                        "spec.attachment.multus.namespaceSelector.matchExpressions[0].operator"));
  }
}
