package dev.cnioperator.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.devices.NetworkDevices;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeResourceSliceTest {

  @Test
  void theSliceIsNamedAfterItsNodeWithinTheApiServersLimit() {
    assertThat(NodeResourceSlice.sliceName("worker-1"))
        .isEqualTo("worker-1-" + NetworkDevices.DRIVER);
    String longName = "n".repeat(240) + ".example.com";
    String a = NodeResourceSlice.sliceName(longName);
    String b = NodeResourceSlice.sliceName("n".repeat(240) + ".example.org");
    assertThat(a).hasSizeLessThanOrEqualTo(253).endsWith("-" + NetworkDevices.DRIVER);
    assertThat(a).as("two long names sharing a prefix").isNotEqualTo(b);
  }

  /** The API server stamps a taint's time; a slice that differs only by that is not rewritten. */
  @Test
  void theTimeTheApiServerGaveATaintIsNoDifference() {
    Device wanted =
        new DeviceBuilder()
            .withName("macvlan")
            .addNewTaint()
            .withKey(NetworkDevices.TAINT_NOT_PROVEN)
            .withValue("Proving")
            .withEffect("NoSchedule")
            .endTaint()
            .build();
    Device held =
        new DeviceBuilder(wanted)
            .editFirstTaint()
            .withTimeAdded("2026-12-07T01:00:00Z")
            .endTaint()
            .build();
    assertThat(NodeResourceSlice.sameDevices(List.of(held), List.of(wanted))).isTrue();
    assertThat(
            NodeResourceSlice.sameDevices(
                List.of(held),
                List.of(
                    new DeviceBuilder(wanted)
                        .editFirstTaint()
                        .withValue("Failed")
                        .endTaint()
                        .build())))
        .isFalse();
  }

  @Test
  void aPassBetweenAWriteAndItsEventComparesWithTheWrite() {
    ResourceSlice watched = slice("41");
    ResourceSlice wrote = slice("42");
    assertThat(NodeResourceSlice.newer(watched, wrote)).isSameAs(wrote);
    assertThat(NodeResourceSlice.newer(slice("43"), wrote).getMetadata().getResourceVersion())
        .isEqualTo("43");
    assertThat(NodeResourceSlice.newer(null, wrote)).isSameAs(wrote);
    assertThat(NodeResourceSlice.newer(watched, null)).isSameAs(watched);
  }

  private static ResourceSlice slice(String resourceVersion) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName("s")
        .withResourceVersion(resourceVersion)
        .endMetadata()
        .build();
  }
}
