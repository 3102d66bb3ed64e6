package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 55.2: a network published to the scheduler has a DeviceClass of its own, selecting its
 * device on every node and mapped to an extended resource, and its nodes are told to publish it;
 * unpublished, the class and the nodes' word go; deleted, the class goes with it.
 */
class NetworkDeviceClassIT {
  private ClusterFixture cluster;

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  private DeviceClass deviceClass(String network) {
    return cluster
        .client
        .dynamicResourceAllocation()
        .v1()
        .deviceClasses()
        .withName(network + "." + NetworkDevices.DRIVER)
        .get();
  }

  private boolean publishedOn(String node, String network) {
    return cluster.specOf(node).stream()
        .filter(n -> network.equals(n.getName()))
        .map(NodeNetwork::getPublishDevice)
        .anyMatch(Boolean.TRUE::equals);
  }

  private String spec(boolean publish) {
    return "  scheduling: {publishDevices: "
        + publish
        + "}\n"
        + cluster.bridgeSpec("ct-dc0", "10.200.3.0/24");
  }

  @Test
  void aPublishedNetworkHasADeviceClassAndItsNodesPublishIt() {
    String node = cluster.node("dc");
    String name = "dc-" + cluster.pool;
    cluster.apply(name, spec(true)).orThrow("apply");

    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> deviceClass(name) != null && publishedOn(node, name));
    DeviceClass c = deviceClass(name);
    assertThat(c.getSpec().getExtendedResourceName()).isEqualTo(NetworkDevices.DRIVER + "/" + name);
    assertThat(c.getSpec().getSelectors())
        .singleElement()
        .satisfies(
            s ->
                assertThat(s.getCel().getExpression())
                    .isEqualTo(
                        "device.driver == \"networks.cnioperator.dev\" && device.attributes"
                            + "[\"networks.cnioperator.dev\"].network == \""
                            + name
                            + "\""));
    CniNetwork network = cluster.network(name);
    assertThat(c.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(network.getMetadata().getUid()));

    // Unpublished: the class goes, and the nodes are told, without a new revision.
    String revision = network.getStatus().getRendered().getSha256();
    cluster.apply(name, spec(false)).orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> deviceClass(name) == null && !publishedOn(node, name));
    assertThat(cluster.network(name).getStatus().getRendered().getSha256()).isEqualTo(revision);

    // Published again, then deleted: the class goes with the network.
    cluster.apply(name, spec(true)).orThrow("apply");
    await().atMost(ClusterFixture.WAIT).until(() -> deviceClass(name) != null);
    cluster.client.resources(CniNetwork.class).withName(name).delete();
    await().atMost(ClusterFixture.WAIT).until(() -> deviceClass(name) == null);
  }
}
