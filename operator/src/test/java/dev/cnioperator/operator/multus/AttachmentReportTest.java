package dev.cnioperator.operator.multus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.MultusAttachment;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AttachmentReportTest {

  private static ChosenNamespaces chosen(MultusAttachment multus) {
    return ChosenNamespaces.of(
        multus,
        List.of(
            ChosenNamespacesTest.namespace("shop", Map.of()),
            ChosenNamespacesTest.namespace("db", Map.of())));
  }

  private static AttachmentReport report(
      ChosenNamespaces chosen, List<AttachmentDefinition> found, List<String> failures) {
    AttachmentDefinitionPlan plan = AttachmentDefinitionPlan.of("dbnet", "u", chosen, found);
    // As acted on: every create succeeds unless a failure is given.
    List<String> held = new ArrayList<>(plan.held());
    if (failures.isEmpty()) {
      held.addAll(plan.create());
    }
    return AttachmentReport.of("dbnet", chosen, plan, held, failures);
  }

  @Test
  void allInPlaceIsCreatedWithTheCountAndTheNamespacesWaitedFor() {
    AttachmentReport report =
        report(
            chosen(new MultusAttachment().setNamespaces(List.of("shop", "db", "later"))),
            List.of(),
            List.of());

    assertThat(report.ready()).isTrue();
    assertThat(report.reason().wire()).isEqualTo("Created");
    assertThat(report.message())
        .isEqualTo(
            "NetworkAttachmentDefinition dbnet is in 2 namespaces; waiting for namespace later to"
                + " exist");
    assertThat(report.namespaces()).containsExactly("db", "shop");
    assertThat(report.recheckAfter()).contains(AttachmentReport.RECHECK);
  }

  @Test
  void oneItDidNotCreateIsAConflictNamingNamespaceAndName() {
    AttachmentReport report =
        report(
            chosen(new MultusAttachment().setNamespaces(List.of("shop", "db"))),
            List.of(new AttachmentDefinition("db", "dbnet", "1", Set.of(), true)),
            List.of());

    assertThat(report.ready()).isFalse();
    assertThat(report.reason().wire()).isEqualTo("Conflict");
    assertThat(report.message())
        .startsWith(
            "NetworkAttachmentDefinition db/dbnet exists and was not created by this network")
        .endsWith("NetworkAttachmentDefinition dbnet is in 1 namespace");
    assertThat(report.namespaces()).containsExactly("shop");
  }

  @Test
  void aNameThatCannotBeANamespaceIsReportedWithItsField() {
    AttachmentReport report =
        report(
            chosen(new MultusAttachment().setNamespaces(List.of("shop", "Shop_1"))),
            List.of(),
            List.of());

    assertThat(report.ready()).isFalse();
    assertThat(report.reason().wire()).isEqualTo("InvalidNamespaces");
    assertThat(report.message())
        .startsWith("spec.attachment.multus.namespaces: \"Shop_1\" cannot be a namespace's name");
  }

  @Test
  void aRefusedSelectorIsReportedAndSaysWhatItKeeps() {
    AttachmentReport report =
        report(
            chosen(
                new MultusAttachment()
                    .setNamespaceSelector(
                        new LabelSelectorBuilder().addToMatchLabels("bad key", "x").build())),
            List.of(),
            List.of());

    assertThat(report.reason().wire()).isEqualTo("InvalidNamespaces");
    assertThat(report.message())
        .contains("spec.attachment.multus.namespaceSelector.matchLabels: label key \"bad key\"")
        .contains("kept until it is fixed");
  }

  @Test
  void aFailedWriteIsRetriedSoonAndAConflictStillComesFirst() {
    ChosenNamespaces chosen = chosen(new MultusAttachment().setNamespaces(List.of("shop", "db")));

    AttachmentReport failed = report(chosen, List.of(), List.of("shop/dbnet: create: forbidden"));
    AttachmentReport both =
        report(
            chosen,
            List.of(new AttachmentDefinition("db", "dbnet", "1", Set.of(), false)),
            List.of("shop/dbnet: create: forbidden"));

    assertThat(failed.reason().wire()).isEqualTo("Failed");
    assertThat(failed.message()).startsWith("shop/dbnet: create: forbidden");
    assertThat(failed.recheckAfter()).contains(AttachmentReport.RETRY);
    assertThat(both.reason().wire()).isEqualTo("Conflict");
    assertThat(both.message()).contains("db/dbnet").contains("shop/dbnet: create: forbidden");
  }

  @Test
  void withoutTheCrdItSaysWhatToInstallAndLooksAgainSoon() {
    AttachmentReport report = AttachmentReport.notInstalled();

    assertThat(report.ready()).isFalse();
    assertThat(report.reason().wire()).isEqualTo("NotInstalled");
    assertThat(report.message())
        .startsWith(
            "the NetworkAttachmentDefinition CRD (network-attachment-definitions.k8s.cni.cncf.io)"
                + " is not installed: install Multus");
    assertThat(report.recheckAfter()).contains(AttachmentReport.RETRY);
  }
}
