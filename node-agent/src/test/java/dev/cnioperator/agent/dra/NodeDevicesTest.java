package dev.cnioperator.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.SpecVersion;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class NodeDevicesTest {
  private static final String SHA = "a".repeat(64);
  private static final String REVISION = "b".repeat(64);

  private static NodeNetwork published(String name) {
    return new NodeNetwork()
        .setName(name)
        .setFileName("50-" + name + ".conflist")
        .setSha256(SHA)
        .setContent("{\"cniVersion\":\"1.0.0\",\"name\":\"" + name + "-net\",\"plugins\":[]}")
        .setRevision(REVISION)
        .setCniVersion(SpecVersion.V1_0_0)
        .setPublishDevice(true);
  }

  private static NodeNetworkStatus applied(String name, ProbeResult probe, String probedSha) {
    return new NodeNetworkStatus()
        .setName(name)
        .setState(NetworkState.Applied)
        .setAppliedSha256(SHA)
        .setProbe(probe == null ? null : new ProbeReport().setSha256(probedSha).setResult(probe));
  }

  private static List<Device> devices(
      List<NodeNetwork> spec, List<NodeNetworkStatus> status, long free) {
    return NodeDevices.of(
        new CniNodeSpec().setNetworks(spec),
        new CniNodeStatus().setNetworks(status),
        n -> free < 0 ? OptionalLong.empty() : OptionalLong.of(free));
  }

  @Test
  void aProvenNetworkIsAnUntaintedSharedDeviceWithItsAttributesAndFreeAddresses() {
    Device d =
        devices(
                List.of(published("macvlan")),
                List.of(applied("macvlan", ProbeResult.Passed, SHA)),
                6)
            .get(0);

    assertThat(d.getName()).isEqualTo("macvlan");
    assertThat(d.getAllowMultipleAllocations()).isTrue();
    assertThat(d.getTaints()).isNullOrEmpty();
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_NETWORK).getString())
        .isEqualTo("macvlan");
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_NETWORK_NAME).getString())
        .isEqualTo("macvlan-net");
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_REVISION).getString())
        .isEqualTo(REVISION);
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_CNI_VERSION).getVersion())
        .isEqualTo("1.0.0");
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_STATE).getString())
        .isEqualTo("Applied");
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_PROVEN).getBool()).isTrue();
    assertThat(d.getCapacity().get(NetworkDevices.CAPACITY_ADDRESSES).getValue())
        .isEqualTo(new Quantity("6"));
    assertThat(
            d.getCapacity().get(NetworkDevices.CAPACITY_ADDRESSES).getRequestPolicy().getDefault())
        .isEqualTo(new Quantity("1"));
  }

  @Test
  void anUncountableNetworkHasNoCapacity() {
    Device d =
        devices(
                List.of(published("macvlan")),
                List.of(applied("macvlan", ProbeResult.Passed, SHA)),
                -1)
            .get(0);
    assertThat(d.getCapacity()).isNullOrEmpty();
  }

  @Test
  void onlyNetworksThatAskAndHaveContentArePublished() {
    NodeNetwork quiet = published("quiet").setPublishDevice(null);
    NodeNetwork unavailable =
        published("waiting").setContent(null).setSha256(null).setUnavailable("no slice yet");
    assertThat(
            devices(
                List.of(quiet, unavailable, published("macvlan")),
                List.of(applied("macvlan", ProbeResult.Passed, SHA)),
                -1))
        .extracting(Device::getName)
        .containsExactly("macvlan");
  }

  /** Every way a network is not proven on the node is a NoSchedule taint saying which. */
  @Test
  void aNetworkNotProvenThereIsTaintedWithWhy() {
    assertThat(taint(List.of())).isEqualTo("Pending");
    assertThat(taint(List.of(applied("macvlan", null, null)))).isEqualTo("Proving");
    assertThat(taint(List.of(applied("macvlan", ProbeResult.Passed, "c".repeat(64)))))
        .as("a probe of other content (the rolled-back revision's) proves nothing of this one")
        .isEqualTo("Proving");
    assertThat(taint(List.of(applied("macvlan", ProbeResult.Failed, SHA))))
        .isEqualTo("ProbeFailed");
    assertThat(
            taint(
                List.of(
                    applied("macvlan", ProbeResult.Passed, SHA).setAppliedSha256("d".repeat(64)))))
        .as("the file holds older content")
        .isEqualTo("Pending");
    for (NetworkState s :
        List.of(NetworkState.Failed, NetworkState.Contested, NetworkState.Conflict)) {
      assertThat(taint(List.of(applied("macvlan", ProbeResult.Passed, SHA).setState(s))))
          .isEqualTo(s.name());
    }
  }

  private static String taint(List<NodeNetworkStatus> status) {
    Device d = devices(List.of(published("macvlan")), status, 3).get(0);
    assertThat(d.getAttributes().get(NetworkDevices.ATTRIBUTE_PROVEN).getBool()).isFalse();
    assertThat(d.getTaints()).hasSize(1);
    DeviceTaint t = d.getTaints().get(0);
    assertThat(t.getKey()).isEqualTo(NetworkDevices.TAINT_NOT_PROVEN);
    assertThat(t.getEffect()).isEqualTo("NoSchedule");
    return t.getValue();
  }

  @Test
  void theSameNodeProjectsEqualDevices() {
    List<NodeNetwork> spec = List.of(published("macvlan"), published("ipvlan"));
    List<NodeNetworkStatus> status = List.of(applied("macvlan", ProbeResult.Passed, SHA));
    assertThat(devices(spec, status, 4)).isEqualTo(devices(spec, status, 4));
    assertThat(NodeResourceSlice.sameDevices(devices(spec, status, 4), devices(spec, status, 4)))
        .isTrue();
    assertThat(NodeResourceSlice.sameDevices(devices(spec, status, 4), devices(spec, status, 3)))
        .isFalse();
  }
}
