package dev.cnioperator.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.exec.CniArg;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.api.model.resource.v1.NetworkDeviceData;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClaimDeviceStatusTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** ptp's 1.0.0 result: the host's veth first, then the pod's, the addresses on the pod's. */
  static final String PTP_RESULT =
      """
      {"cniVersion":"1.0.0",
       "interfaces":[{"name":"veth1a2b3c4d","mac":"5e:00:00:00:00:01"},
                     {"name":"eth0","mac":"0a:58:0a:01:00:05","sandbox":"/var/run/netns/p1"}],
       "ips":[{"address":"10.1.0.5/24","gateway":"10.1.0.1","interface":1},
              {"address":"2001:DB8:0:0::0005/64","interface":1}],
       "routes":[{"dst":"0.0.0.0/0"}]}
      """;

  static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static CachedAttachment entry(String container, String pod, String ifName, String result) {
    return new CachedAttachment(
        "lan",
        container,
        ifName,
        "/var/run/netns/" + container,
        List.of(
            new CniArg("K8S_POD_NAMESPACE", "apps"),
            new CniArg("K8S_POD_NAME", "web-" + pod),
            new CniArg("K8S_POD_UID", pod)),
        Map.of(),
        new byte[0],
        result == null ? null : json(result));
  }

  static PreparedClaims.Claim claim(List<String> pods, PreparedClaims.Allocation... allocated) {
    return new PreparedClaims.Claim(
        "c1",
        "apps",
        "web-lan",
        List.of(allocated).stream().map(PreparedClaims.Allocation::device).distinct().toList(),
        pods,
        List.of(allocated));
  }

  private static final PreparedClaims.Allocation LAN = new PreparedClaims.Allocation("lan", null);

  @Test
  void aPodsAttachmentGivesItsInterfaceItsCanonicalAddressesAndThePodSidesMac() {
    List<AllocatedDeviceStatus> entries =
        ClaimDeviceStatus.of(
            claim(List.of("p1"), LAN),
            "lan",
            "node-1",
            List.of(entry("c1", "p1", "eth0", PTP_RESULT)));

    assertThat(entries)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getDriver()).isEqualTo(NetworkDevices.DRIVER);
              assertThat(e.getPool()).isEqualTo("node-1");
              assertThat(e.getDevice()).isEqualTo("lan");
              assertThat(e.getShareID()).isNull();
              assertThat(e.getNetworkData().getInterfaceName()).isEqualTo("eth0");
              assertThat(e.getNetworkData().getIps())
                  .containsExactly("10.1.0.5/24", "2001:db8::5/64");
              assertThat(e.getNetworkData().getHardwareAddress()).isEqualTo("0a:58:0a:01:00:05");
            });
  }

  /** 0.4.0 results have the same shape, with each address's version. */
  @Test
  void aResultOf040HasTheSameShape() {
    String result =
        """
        {"cniVersion":"0.4.0",
         "interfaces":[{"name":"cni0","mac":"5e:00:00:00:00:09"},
                       {"name":"vethabc","mac":"5e:00:00:00:00:01"},
                       {"name":"net1","mac":"0a:58:0a:02:00:07","sandbox":"/var/run/netns/p1"}],
         "ips":[{"version":"4","address":"10.2.0.7/16","gateway":"10.2.0.1","interface":2}]}
        """;
    NetworkDeviceData data = ClaimDeviceStatus.networkData(entry("c1", "p1", "net1", result));

    assertThat(data.getInterfaceName()).isEqualTo("net1");
    assertThat(data.getIps()).containsExactly("10.2.0.7/16");
    assertThat(data.getHardwareAddress()).isEqualTo("0a:58:0a:02:00:07");
  }

  /**
   * No result, one without addresses, one that cannot be read: the interface's name, and its MAC
   * where the result names the pod's interface.
   */
  @Test
  void anAttachmentWithoutAddressesGivesItsInterfaceNameOnly() {
    NetworkDeviceData none = ClaimDeviceStatus.networkData(entry("c1", "p1", "eth0", null));
    assertThat(none.getInterfaceName()).isEqualTo("eth0");
    assertThat(none.getIps()).isNullOrEmpty();
    assertThat(none.getHardwareAddress()).isNull();

    NetworkDeviceData empty =
        ClaimDeviceStatus.networkData(entry("c1", "p1", "eth0", "{\"cniVersion\":\"1.0.0\"}"));
    assertThat(empty.getInterfaceName()).isEqualTo("eth0");
    assertThat(empty.getIps()).isNullOrEmpty();
    assertThat(empty.getHardwareAddress()).isNull();

    NetworkDeviceData broken =
        ClaimDeviceStatus.networkData(
            entry("c1", "p1", "eth0", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"x\"}]}"));
    assertThat(broken.getInterfaceName()).isEqualTo("eth0");
    assertThat(broken.getIps()).isNullOrEmpty();

    NetworkDeviceData macOnly =
        ClaimDeviceStatus.networkData(
            entry(
                "c1",
                "p1",
                "eth0",
                "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\",\"mac\":\"0a:58:00:00:00:01\","
                    + "\"sandbox\":\"/var/run/netns/p1\"}]}"));
    assertThat(macOnly.getIps()).isNullOrEmpty();
    assertThat(macOnly.getHardwareAddress()).isEqualTo("0a:58:00:00:00:01");
  }

  /** An address on an interface outside the pod is not the pod's. */
  @Test
  void anAddressOnAHostInterfaceIsLeftOut() {
    String result =
        """
        {"cniVersion":"1.0.0",
         "interfaces":[{"name":"br0","mac":"5e:00:00:00:00:09"},
                       {"name":"eth0","mac":"0a:58:0a:01:00:05","sandbox":"/var/run/netns/p1"}],
         "ips":[{"address":"10.1.0.1/24","interface":0},{"address":"10.1.0.5/24","interface":1}]}
        """;
    NetworkDeviceData data = ClaimDeviceStatus.networkData(entry("c1", "p1", "eth0", result));

    assertThat(data.getIps()).containsExactly("10.1.0.5/24");
    assertThat(data.getHardwareAddress()).isEqualTo("0a:58:0a:01:00:05");
  }

  /** The API server takes sixteen addresses at most, each once. */
  @Test
  void atMostSixteenAddressesEachOnce() {
    StringBuilder ips = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      ips.append(i == 0 ? "" : ",").append("{\"address\":\"10.1.0.").append(i).append("/24\"}");
    }
    ips.append(",{\"address\":\"10.1.0.0/24\"}");
    NetworkDeviceData data =
        ClaimDeviceStatus.networkData(
            entry("c1", "p1", "eth0", "{\"cniVersion\":\"1.0.0\",\"ips\":[" + ips + "]}"));

    assertThat(data.getIps()).hasSize(16).doesNotHaveDuplicates().startsWith("10.1.0.0/24");
  }

  /**
   * Only the claim's pods' attachments count, never a probe's; a pod without one on the network
   * gives no entry.
   */
  @Test
  void onlyTheClaimsPodsAttachmentsCount() {
    List<CachedAttachment> cache =
        List.of(
            entry("c2", "p2", "eth0", PTP_RESULT),
            entry(ProbeIdentity.PREFIX + "n1-x", "p1", "eth0", PTP_RESULT));

    assertThat(ClaimDeviceStatus.of(claim(List.of("p1"), LAN), "lan", "node-1", cache)).isEmpty();
    assertThat(ClaimDeviceStatus.of(claim(List.of("p1"), LAN), "san", "node-1", cache)).isEmpty();
  }

  /**
   * A claim allocated two shares of the network, for a pod with two interfaces on it: one entry
   * each, in order; a claim shared by two pods: the first pod's, in the claim's order.
   */
  @Test
  void eachAllocatedDeviceGetsAnAttachmentInOrder() {
    PreparedClaims.Allocation first = new PreparedClaims.Allocation("lan", "aaaa-1");
    PreparedClaims.Allocation second = new PreparedClaims.Allocation("lan", "bbbb-2");
    List<CachedAttachment> cache =
        List.of(entry("c1", "p1", "net2", PTP_RESULT), entry("c1", "p1", "net1", PTP_RESULT));

    List<AllocatedDeviceStatus> entries =
        ClaimDeviceStatus.of(claim(List.of("p1"), first, second), "lan", "node-1", cache);

    assertThat(entries)
        .extracting(AllocatedDeviceStatus::getShareID, e -> e.getNetworkData().getInterfaceName())
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("aaaa-1", "net1"),
            org.assertj.core.groups.Tuple.tuple("bbbb-2", "net2"));

    List<CachedAttachment> twoPods =
        List.of(entry("c1", "p1", "eth0", PTP_RESULT), entry("c2", "p2", "eth0", null));
    assertThat(ClaimDeviceStatus.of(claim(List.of("p2", "p1"), LAN), "lan", "node-1", twoPods))
        .singleElement()
        .satisfies(e -> assertThat(e.getNetworkData().getIps()).isNullOrEmpty());
  }
}
