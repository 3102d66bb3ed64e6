package dev.cnioperator.operator.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class NodeValuesChangedTest {
  private static final Node NODE =
      new NodeBuilder()
          .withNewMetadata()
          .withName("node-a")
          .withUid("uid-1")
          .addToLabels("zone", "a")
          .endMetadata()
          .withNewSpec()
          .withPodCIDR("10.1.0.0/24")
          .endSpec()
          .withNewStatus()
          .addNewAddress("10.231.0.2", "InternalIP")
          .addNewCondition()
          .withType("Ready")
          .withStatus("True")
          .withLastHeartbeatTime("2026-11-23T10:00:00Z")
          .endCondition()
          .endStatus()
          .build();

  private static boolean changed(UnaryOperator<NodeBuilder> edit) {
    return new NodeValuesChanged().accept(edit.apply(new NodeBuilder(NODE)).build(), NODE);
  }

  @Test
  void whatANetworkCanUseOfTheNodeAndItsUidCount() {
    assertThat(changed(b -> b.editMetadata().addToLabels("zone", "b").endMetadata())).isTrue();
    assertThat(changed(b -> b.editMetadata().addToAnnotations("k", "v").endMetadata())).isTrue();
    assertThat(changed(b -> b.editSpec().withPodCIDR("10.2.0.0/24").endSpec())).isTrue();
    assertThat(changed(b -> b.editStatus().addNewAddress("10.231.0.3", "InternalIP").endStatus()))
        .isTrue();
    assertThat(changed(b -> b.editMetadata().withUid("uid-2").endMetadata())).isTrue();
  }

  @Test
  void heartbeatsAndAddressesNoNetworkUsesDoNot() {
    assertThat(changed(b -> b)).isFalse();
    assertThat(
            changed(
                b ->
                    b.editStatus()
                        .editFirstCondition()
                        .withLastHeartbeatTime("2026-11-23T10:01:00Z")
                        .endCondition()
                        .endStatus()))
        .isFalse();
    assertThat(changed(b -> b.editStatus().addNewAddress("node-a", "Hostname").endStatus()))
        .isFalse();
  }
}
