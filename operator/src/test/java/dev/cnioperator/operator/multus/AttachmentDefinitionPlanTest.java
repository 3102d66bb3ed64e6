package dev.cnioperator.operator.multus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.MultusAttachment;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AttachmentDefinitionPlanTest {
  private static final String UID = "uid-1";

  private static final ChosenNamespaces SHOP_AND_DB =
      chosen(new MultusAttachment().setNamespaces(List.of("shop", "db")));

  private static ChosenNamespaces chosen(MultusAttachment multus) {
    return ChosenNamespaces.of(
        multus,
        List.of(
            ChosenNamespacesTest.namespace("shop", Map.of()),
            ChosenNamespacesTest.namespace("db", Map.of()),
            ChosenNamespacesTest.namespace("web", Map.of("multus", "yes"))));
  }

  private static AttachmentDefinition own(String namespace, String name) {
    return new AttachmentDefinition(namespace, name, "7", Set.of(UID), false);
  }

  private static AttachmentDefinition foreign(String namespace, String name) {
    return new AttachmentDefinition(namespace, name, "8", Set.of(), true);
  }

  @Test
  void everyChosenNamespaceWithoutOneGetsOne() {
    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of("dbnet", UID, SHOP_AND_DB, List.of(own("shop", "dbnet")));

    assertThat(plan.held()).containsExactly("shop");
    assertThat(plan.create()).containsExactly("db");
    assertThat(plan.delete()).isEmpty();
    assertThat(plan.conflicts()).isEmpty();
  }

  @Test
  void oneItDidNotCreateIsAConflictNeitherReplacedNorDeleted() {
    AttachmentDefinition theirs = foreign("db", "dbnet");
    AttachmentDefinition elsewhere = foreign("web", "dbnet");

    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of("dbnet", UID, SHOP_AND_DB, List.of(theirs, elsewhere));

    assertThat(plan.conflicts()).containsExactly(theirs);
    assertThat(plan.create()).containsExactly("shop");
    assertThat(plan.delete()).isEmpty();
    assertThat(plan.restore()).isEmpty();
  }

  @Test
  void oneOwnedByAnotherObjectIsNotItsOwn() {
    AttachmentDefinition other =
        new AttachmentDefinition("shop", "dbnet", "1", Set.of("uid-2"), false);

    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of("dbnet", UID, SHOP_AND_DB, List.of(other));

    assertThat(plan.conflicts()).containsExactly(other);
    assertThat(plan.held()).isEmpty();
  }

  @Test
  void itsOwnGoesFromANamespaceNoLongerChosenAndUnderAnOldName() {
    AttachmentDefinition unchosen = own("web", "dbnet");
    AttachmentDefinition renamed = own("shop", "olddb");

    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of(
            "dbnet", UID, SHOP_AND_DB, List.of(unchosen, renamed, own("shop", "dbnet")));

    assertThat(plan.delete()).containsExactly(renamed, unchosen);
    assertThat(plan.held()).containsExactly("shop");
    assertThat(plan.create()).containsExactly("db");
  }

  @Test
  void itsOwnWithAConfigSomeoneWroteIsRestored() {
    AttachmentDefinition edited = new AttachmentDefinition("shop", "dbnet", "9", Set.of(UID), true);

    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of("dbnet", UID, SHOP_AND_DB, List.of(edited));

    assertThat(plan.restore()).containsExactly(edited);
    assertThat(plan.held()).containsExactly("shop");
  }

  @Test
  void foundTwiceByNameAndByLabelCountsOnce() {
    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of(
            "dbnet", UID, SHOP_AND_DB, List.of(own("web", "dbnet"), own("web", "dbnet")));

    assertThat(plan.delete()).hasSize(1);
  }

  @Test
  void whileTheSelectorIsRefusedItsOwnInOtherNamespacesStay() {
    ChosenNamespaces refused =
        chosen(
            new MultusAttachment()
                .setNamespaces(List.of("shop"))
                .setNamespaceSelector(ChosenNamespacesTest.refusedSelector()));
    AttachmentDefinition renamed = own("shop", "olddb");

    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of("dbnet", UID, refused, List.of(own("web", "dbnet"), renamed));

    assertThat(plan.delete()).containsExactly(renamed);
    assertThat(plan.held()).containsExactly("web");
    assertThat(plan.create()).containsExactly("shop");
  }

  @Test
  void withoutANameNothingIsCreatedAndItsOwnGo() {
    AttachmentDefinitionPlan plan =
        AttachmentDefinitionPlan.of(null, UID, SHOP_AND_DB, List.of(own("shop", "dbnet")));

    assertThat(plan.create()).isEmpty();
    assertThat(plan.delete()).hasSize(1);
  }
}
