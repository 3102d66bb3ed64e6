package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.dra.NodeResourceSlice;
import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The API server's limits on what the agent publishes, met on a real kube-apiserver: a slice whose
 * devices have taints and consumable capacity holds 64 at most, and an API server without
 * consumable capacity (a release before 1.36, stood for by 1.37 with the feature gate off) gets
 * nothing, with the reason the agent records on its CniNode.
 */
class ResourceSliceLimitsIT {

  /** A device as the agent publishes one: shared, with capacity, tainted until proven. */
  private static Device device(String name) {
    return new DeviceBuilder()
        .withName(name)
        .withAllowMultipleAllocations(true)
        .addToCapacity(
            NetworkDevices.CAPACITY_ADDRESSES,
            new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder()
                .withValue(new io.fabric8.kubernetes.api.model.Quantity("6"))
                .build())
        .addNewTaint()
        .withKey(NetworkDevices.TAINT_NOT_PROVEN)
        .withValue("Proving")
        .withEffect("NoSchedule")
        .endTaint()
        .build();
  }

  private static String node(KubernetesClient client) {
    String name = TestNames.unique("limits");
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }

  private static List<ResourceSlice> slicesOf(KubernetesClient client, String node) {
    return client.resources(ResourceSlice.class).withField("spec.nodeName", node).list().getItems();
  }

  @Test
  void aNodeWithMoreNetworksThanASliceHoldsPublishesTheFirst64AndTheApiServerTakesThem() {
    KubernetesClient client = LocalControlPlane.shared().client();
    String node = node(client);
    try (NodeResourceSlice slice = new NodeResourceSlice(client, node, () -> {})) {
      List<Device> devices = IntStream.range(0, 70).mapToObj(i -> device("net" + i)).toList();
      assertThat(slice.publish(devices)).as("written").isTrue();
      List<ResourceSlice> slices = slicesOf(client, node);
      assertThat(slices).hasSize(1);
      ResourceSlice held = slices.get(0);
      assertThat(held.getSpec().getDevices())
          .extracting(Device::getName)
          .containsExactlyElementsOf(devices.subList(0, 64).stream().map(Device::getName).toList());
      assertThat(slice.refusal()).isEmpty();
    } finally {
      client.nodes().withName(node).delete();
      client.resources(ResourceSlice.class).withField("spec.nodeName", node).delete();
    }
  }

  @Test
  void anApiServerWithoutConsumableCapacityGetsNothingAndTheAgentSaysWhy() {
    try (LocalControlPlane old =
        LocalControlPlane.startWithApiServerFlags("--feature-gates=DRAConsumableCapacity=false")) {
      KubernetesClient client = old.client();
      String node = node(client);
      try (NodeResourceSlice slice = new NodeResourceSlice(client, node, () -> {})) {
        assertThat(slice.publish(List.of(device("lan")))).as("written").isFalse();
        assertThat(client.resources(ResourceSlice.class).list().getItems()).isEmpty();
        assertThat(slice.refusal())
            .hasValue(
                "networks are not published to the scheduler on this cluster: its API server"
                    + " drops a device's allowMultipleAllocations (consumable capacity); publishing"
                    + " needs Kubernetes 1.36 or later (feature gates DRAConsumableCapacity and"
                    + " DRADeviceTaints, on by default there)");
      }
    }
  }
}
