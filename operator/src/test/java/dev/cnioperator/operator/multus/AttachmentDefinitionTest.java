package dev.cnioperator.operator.multus;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.operator.TestNetworks;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AttachmentDefinitionTest {

  private static CniNetwork network(String name) {
    CniNetwork n = TestNetworks.network(name, "{\"type\":\"macvlan\"}");
    n.getMetadata().setUid("uid-1");
    return n;
  }

  @Test
  void itCreatesAConfigLessDefinitionOwnedAndLabelledAsTheNetworks() {
    GenericKubernetesResource d = AttachmentDefinition.desired(network("sec"), "shop", "dbnet");

    assertThat(d.getApiVersion()).isEqualTo("k8s.cni.cncf.io/v1");
    assertThat(d.getKind()).isEqualTo("NetworkAttachmentDefinition");
    assertThat(d.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(d.getMetadata().getName()).isEqualTo("dbnet");
    assertThat(d.getMetadata().getLabels())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "app.kubernetes.io/managed-by", "cni-operator", "cnioperator.dev/network", "sec"));
    assertThat(d.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            o -> {
              assertThat(o.getApiVersion()).isEqualTo("cnioperator.dev/v1alpha1");
              assertThat(o.getKind()).isEqualTo("CniNetwork");
              assertThat(o.getName()).isEqualTo("sec");
              assertThat(o.getUid()).isEqualTo("uid-1");
              assertThat(o.getController()).isTrue();
            });
    assertThat(d.getAdditionalProperties()).containsEntry("spec", Map.of());

    AttachmentDefinition read = AttachmentDefinition.of(d);
    assertThat(read.ownedBy("uid-1")).isTrue();
    assertThat(read.ownedBy("uid-2")).isFalse();
    assertThat(read.configured()).isFalse();
  }

  @Test
  void aDefinitionWithAConfigIsConfiguredAndAnEmptyOneIsNot() {
    GenericKubernetesResource d = AttachmentDefinition.desired(network("sec"), "shop", "dbnet");
    d.setAdditionalProperty("spec", Map.of("config", "{\"cniVersion\":\"1.0.0\"}"));
    assertThat(AttachmentDefinition.of(d).configured()).isTrue();
    d.setAdditionalProperty("spec", Map.of("config", ""));
    assertThat(AttachmentDefinition.of(d).configured()).isFalse();
    d.getAdditionalProperties().remove("spec");
    assertThat(AttachmentDefinition.of(d).configured()).isFalse();
  }

  @Test
  void aNetworkNameTooLongForALabelValueGetsAShortenedOneOfItsOwn() {
    String long1 = "a".repeat(60) + ".b-c.example.com";
    String long2 = "a".repeat(60) + ".b-c.example.org";

    String value = AttachmentDefinition.labelValue(long1);

    assertThat(AttachmentDefinition.labelValue("sec")).isEqualTo("sec");
    assertThat(AttachmentDefinition.labelValue("x".repeat(63))).isEqualTo("x".repeat(63));
    assertThat(value).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9_.]*[a-z0-9])?");
    assertThat(value).isNotEqualTo(AttachmentDefinition.labelValue(long2));
    assertThat(AttachmentDefinition.labelValue(long1)).isEqualTo(value);
  }

  @Test
  void onlyLabelsAndDeletionOfANamespaceCanChangeWhetherItIsChosen() {
    Namespace before = ChosenNamespacesTest.namespace("shop", Map.of("a", "1"));
    Namespace annotated = ChosenNamespacesTest.namespace("shop", Map.of("a", "1"));
    annotated.getMetadata().setAnnotations(Map.of("note", "x"));
    Namespace relabelled = ChosenNamespacesTest.namespace("shop", Map.of("a", "2"));
    Namespace deleting = ChosenNamespacesTest.namespace("shop", Map.of("a", "1"));
    deleting.getMetadata().setDeletionTimestamp("2026-11-26T10:00:00Z");

    assertThat(MultusNamespaces.choosingChanged(annotated, before)).isFalse();
    assertThat(MultusNamespaces.choosingChanged(relabelled, before)).isTrue();
    assertThat(MultusNamespaces.choosingChanged(deleting, before)).isTrue();
  }
}
