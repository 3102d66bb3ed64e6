package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 55 on a real kubelet node with the real kube-scheduler (Kubernetes 1.37), the product from
 * {@code helm install}: a network published to the scheduler is a device of the node's
 * ResourceSlice; a pod that asks for it, by the extended resource or by a ResourceClaim, is
 * allocated it by the scheduler and prepared by the agent as the kubelet's DRA plugin, and runs; a
 * pod that asks for a network whose probe fails on the node is not placed there, and the operator
 * says which network and why in an Event on the pod.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetworkClaimsE2E {
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final String POD_NETWORK = "claimed";
  private static final String BROKEN = "claimbroken";

  private OneNodeProduct product;
  private LocalControlPlane cp;
  private KubeletNode node;
  private String apps;

  @BeforeAll
  void install() {
    product = OneNodeProduct.install("claims");
    cp = product.cp;
    node = product.node;
    apps = product.apps;
    ClusterNetworks networks = ClusterNetworks.on(cp);
    networks.apply(
        ClusterNetworks.podNetwork(
            POD_NETWORK, "cbclaim0", "scheduling: {publishDevices: true}", ""));
    networks.waitReady(POD_NETWORK);
  }

  @AfterAll
  void uninstall() {
    if (product != null) {
      product.close();
    }
  }

  private KubernetesClient client() {
    return cp.client();
  }

  private Optional<Device> device(String network) {
    return client().resources(ResourceSlice.class).list().getItems().stream()
        .filter(s -> NetworkDevices.DRIVER.equals(s.getSpec().getDriver()))
        .filter(s -> node.name().equals(s.getSpec().getNodeName()))
        .flatMap(s -> s.getSpec().getDevices().stream())
        .filter(d -> network.equals(d.getName()))
        .findFirst();
  }

  private static boolean tainted(Device d) {
    return d.getTaints() != null && !d.getTaints().isEmpty();
  }

  private Pod pod(String name, Map<String, Quantity> limits) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(apps)
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(0L)
        .withContainers(
            new io.fabric8.kubernetes.api.model.ContainerBuilder(NodePods.pauseContainer(node))
                .withNewResources()
                .withLimits(limits)
                .endResources()
                .build())
        .endSpec()
        .build();
  }

  private ResourceClaim claim(String name) {
    return client()
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace(apps)
        .withName(name)
        .get();
  }

  private Pod awaitRunning(String name) {
    return await(name + " running")
        .atMost(SETTLE)
        .until(
            () -> client().pods().inNamespace(apps).withName(name).get(),
            p -> p != null && NodePods.running(p));
  }

  @Test
  @Order(1)
  void aPodAskingForThePublishedNetworkByItsExtendedResourceIsPlacedPreparedAndRuns() {
    Device device =
        await("the network's device, proven")
            .atMost(SETTLE)
            .until(() -> device(POD_NETWORK), d -> d.isPresent() && !tainted(d.get()))
            .get();
    assertThat(device.getAllowMultipleAllocations()).isTrue();
    assertThat(device.getCapacity()).containsKey(NetworkDevices.CAPACITY_ADDRESSES);
    assertThat(
            client()
                .dynamicResourceAllocation()
                .v1()
                .deviceClasses()
                .withName(POD_NETWORK + "." + NetworkDevices.DRIVER)
                .get())
        .isNotNull();

    client()
        .resource(
            pod(
                "by-resource",
                Map.of(NetworkDevices.DRIVER + "/" + POD_NETWORK, new Quantity("1"))))
        .create();
    Pod running = awaitRunning("by-resource");
    assertThat(running.getSpec().getNodeName()).isEqualTo(node.name());
    // The scheduler made the pod's claim and allocated the node's device of the network to it.
    String claimName = running.getStatus().getExtendedResourceClaimStatus().getResourceClaimName();
    ResourceClaim claim = claim(claimName);
    assertThat(claim.getStatus().getAllocation().getDevices().getResults())
        .extracting(
            DeviceRequestAllocationResult::getDriver,
            DeviceRequestAllocationResult::getPool,
            DeviceRequestAllocationResult::getDevice)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(NetworkDevices.DRIVER, node.name(), POD_NETWORK));
    // And the agent, with the chart's permissions (its pod's token, bound to the node), says in
    // the claim where the pod is on the network.
    AllocatedDeviceStatus where =
        await("the claim's device status")
            .atMost(SETTLE)
            .until(
                () ->
                    Optional.ofNullable(claim(claimName).getStatus().getDevices())
                        .flatMap(d -> d.stream().findFirst()),
                Optional::isPresent)
            .get();
    assertThat(where.getDevice()).isEqualTo(POD_NETWORK);
    assertThat(where.getNetworkData().getInterfaceName()).isEqualTo("eth0");
    assertThat(where.getNetworkData().getIps())
        .anyMatch(ip -> ip.startsWith(running.getStatus().getPodIP() + "/"));
    assertThat(where.getNetworkData().getHardwareAddress()).matches("([0-9a-f]{2}:){5}[0-9a-f]{2}");
  }

  @Test
  @Order(2)
  void aPodAskingForItByAResourceClaimRunsToo() {
    client()
        .resource(
            new ResourceClaimTemplateBuilder()
                .withNewMetadata()
                .withName(POD_NETWORK)
                .withNamespace(apps)
                .endMetadata()
                .withNewSpec()
                .withNewSpec()
                .withNewDevices()
                .addNewRequest()
                .withName("network")
                .withNewExactly()
                .withDeviceClassName(POD_NETWORK + "." + NetworkDevices.DRIVER)
                .endExactly()
                .endRequest()
                .endDevices()
                .endSpec()
                .endSpec()
                .build())
        .create();
    Pod pod = pod("by-claim", Map.of());
    pod.getSpec()
        .setResourceClaims(
            List.of(
                new io.fabric8.kubernetes.api.model.PodResourceClaimBuilder()
                    .withName("network")
                    .withResourceClaimTemplateName(POD_NETWORK)
                    .build()));
    pod.getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .setClaims(
            List.of(
                new io.fabric8.kubernetes.api.model.ResourceClaimBuilder()
                    .withName("network")
                    .build()));
    client().resource(pod).create();
    assertThat(awaitRunning("by-claim").getSpec().getNodeName()).isEqualTo(node.name());
  }

  @Test
  @Order(3)
  void aPodAskingForANetworkThatFailsOnTheNodeIsNotPlacedAndTheSchedulerSaysWhy() {
    ClusterNetworks.on(cp)
        .apply(
            ClusterNetworks.gatewayBridgeNetwork(
                    BROKEN, "cbclaimx0", "10.239.79.0/24", "mtu: 70000")
                .replace("spec:\n", "spec:\n  scheduling: {publishDevices: true}\n"));
    Device device =
        await("the failing network's device, tainted ProbeFailed")
            .atMost(SETTLE)
            .until(
                () -> device(BROKEN),
                d ->
                    d.isPresent()
                        && tainted(d.get())
                        && "ProbeFailed".equals(d.get().getTaints().get(0).getValue()))
            .get();
    assertThat(device.getTaints().get(0).getKey()).isEqualTo(NetworkDevices.TAINT_NOT_PROVEN);

    client()
        .resource(pod("on-broken", Map.of(NetworkDevices.DRIVER + "/" + BROKEN, new Quantity("1"))))
        .create();
    Event why =
        await("the scheduler's word on it")
            .atMost(SETTLE)
            .until(
                () ->
                    client().v1().events().inNamespace(apps).list().getItems().stream()
                        .filter(e -> "on-broken".equals(e.getInvolvedObject().getName()))
                        .filter(e -> "FailedScheduling".equals(e.getReason()))
                        .findFirst(),
                Optional::isPresent)
            .get();
    System.out.println("event=failed-scheduling message=\"" + why.getMessage() + "\"");
    // The scheduler says "cannot allocate all claims"; the operator says which network and why.
    Event named =
        await("the operator's word on it")
            .atMost(SETTLE)
            .until(
                () ->
                    client().v1().events().inNamespace(apps).list().getItems().stream()
                        .filter(e -> "on-broken".equals(e.getInvolvedObject().getName()))
                        .filter(e -> "NetworkUnschedulable".equals(e.getReason()))
                        .filter(e -> e.getMessage().contains("(ProbeFailed)"))
                        .findFirst(),
                Optional::isPresent)
            .get();
    assertThat(named.getType()).isEqualTo("Warning");
    assertThat(named.getMessage())
        .startsWith("network " + BROKEN + ": not proven on " + node.name() + " (ProbeFailed)");
    Pod pending = client().pods().inNamespace(apps).withName("on-broken").get();
    assertThat(pending.getSpec().getNodeName()).isNull();
    assertThat(pending.getStatus().getPhase()).isEqualTo("Pending");
  }
}
