package dev.cnioperator.operator.devices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.devices.NetworkDevices;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UnschedulablePodsTest {

  private static Pod pod(String nodeName, String reason, Map<String, Quantity> limits) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .endMetadata()
        .withNewSpec()
        .withNodeName(nodeName)
        .addNewContainer()
        .withName("c")
        .withNewResources()
        .withLimits(limits)
        .endResources()
        .endContainer()
        .endSpec()
        .withNewStatus()
        .addNewCondition()
        .withType("PodScheduled")
        .withStatus(reason == null ? "True" : "False")
        .withReason(reason)
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void aPodTheSchedulerTurnedDownAsksForTheNetworksOfItsExtendedResources() {
    Pod p =
        pod(
            null,
            "Unschedulable",
            Map.of(NetworkDevices.DRIVER + "/lan", new Quantity("1"), "cpu", new Quantity("1")));
    assertThat(UnschedulablePods.unschedulable(p)).isTrue();
    assertThat(UnschedulablePods.byExtendedResource(p)).containsExactly("lan");
    assertThat(UnschedulablePods.unschedulable(pod("n1", null, Map.of()))).isFalse();
    assertThat(UnschedulablePods.unschedulable(pod(null, "SchedulingGated", Map.of()))).isFalse();
  }

  private static ResourceSlice slice(String node, String taint, Long addresses) {
    DeviceBuilder d = new DeviceBuilder().withName("lan");
    if (taint != null) {
      d.addNewTaint()
          .withKey(NetworkDevices.TAINT_NOT_PROVEN)
          .withValue(taint)
          .withEffect("NoSchedule")
          .endTaint();
    }
    if (addresses != null) {
      d.addToCapacity(
          NetworkDevices.CAPACITY_ADDRESSES,
          new io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder()
              .withValue(new Quantity(addresses.toString()))
              .build());
    }
    return new ResourceSliceBuilder()
        .withNewSpec()
        .withNodeName(node)
        .withDriver(NetworkDevices.DRIVER)
        .withDevices(d.build())
        .endSpec()
        .build();
  }

  @Test
  void theReasonNamesTheNetworkAndWhereItIsNotProvenOrFull() {
    assertThat(
            UnschedulablePods.why(
                "lan",
                List.of(slice("a", "ProbeFailed", 5L), slice("b", null, 0L), slice("c", null, 4L))))
        .isEqualTo(
            "network lan: not proven on a (ProbeFailed); no address left on b; proven with"
                + " addresses left on 1 node that the scheduler turned down for other reasons, or"
                + " whose addresses the pods that claim the network have taken");
    assertThat(UnschedulablePods.why("lan", List.of(slice("a", "Contested", null))))
        .isEqualTo("network lan: not proven on a (Contested)");
    assertThat(UnschedulablePods.why("wan", List.of(slice("a", null, 3L))))
        .startsWith("network wan: published on no node");
  }
}
