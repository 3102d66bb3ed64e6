package dev.cnioperator.operator.devices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.devices.NetworkDevices;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import java.math.BigInteger;
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
                List.of(
                    slice("a", "ProbeFailed", 5L),
                    slice("b", null, 0L),
                    slice("c", null, 4L),
                    slice("d", null, 6L)),
                Map.of("c", BigInteger.valueOf(3), "d", BigInteger.valueOf(6))))
        .isEqualTo(
            "network lan: not proven on a (ProbeFailed); no address left on b, d (6 claimed of"
                + " 6); proven with addresses left on 1 node that the scheduler turned down for"
                + " other reasons");
    assertThat(UnschedulablePods.why("lan", List.of(slice("a", "Contested", null)), Map.of()))
        .isEqualTo("network lan: not proven on a (Contested)");
    assertThat(UnschedulablePods.why("wan", List.of(slice("a", null, 3L)), Map.of()))
        .startsWith("network wan: published on no node");
  }

  private static ResourceClaim allocated(String driver, String pool, String device, String used) {
    DeviceRequestAllocationResultBuilder r =
        new DeviceRequestAllocationResultBuilder()
            .withRequest("network")
            .withDriver(driver)
            .withPool(pool)
            .withDevice(device);
    if (used != null) {
      r.withConsumedCapacity(Map.of(NetworkDevices.CAPACITY_ADDRESSES, new Quantity(used)));
    }
    return new ResourceClaimBuilder()
        .withNewStatus()
        .withNewAllocation()
        .withNewDevices()
        .withResults(r.build())
        .endDevices()
        .endAllocation()
        .endStatus()
        .build();
  }

  @Test
  void theAddressesClaimsHoldAreCountedByNodeOneWhereTheAllocationDoesNotSay() {
    assertThat(
            UnschedulablePods.claimedAddresses(
                "lan",
                List.of(
                    allocated(NetworkDevices.DRIVER, "a", "lan", "1"),
                    allocated(NetworkDevices.DRIVER, "a", "lan", null),
                    allocated(NetworkDevices.DRIVER, "b", "lan", "2"),
                    allocated(NetworkDevices.DRIVER, "b", "wan", "1"),
                    allocated("gpu.example.com", "b", "lan", "1"),
                    new ResourceClaimBuilder().build())))
        .isEqualTo(Map.of("a", BigInteger.valueOf(2), "b", BigInteger.valueOf(2)));
  }
}
