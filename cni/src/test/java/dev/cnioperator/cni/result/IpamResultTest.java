package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The abbreviated result of delegated IPAM plugins. */
class IpamResultTest {

  @Test
  void readsHostLocalOutput() {
    // What host-local prints for a 1.0.0 request: no interfaces, no interface index.
    IpamResult ipam =
        IpamResult.parse(
            """
            {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.2/24","gateway":"10.200.0.1"}],
             "routes":[{"dst":"0.0.0.0/0"}],"dns":{}}
            """
                .getBytes(StandardCharsets.UTF_8),
            CniVersion.V1_0_0);

    assertThat(ipam.cniVersion()).isEqualTo(CniVersion.V1_0_0);
    assertThat(ipam.ips()).containsExactly(new IpConfig("10.200.0.2/24", "10.200.0.1", null));
    assertThat(ipam.routes()).containsExactly(Route.of("0.0.0.0/0", null));
  }

  @Test
  void dropsInterfacesAndIndexesAnIpamResultMustNotHave() {
    IpamResult ipam =
        IpamResult.parse(
            """
            {"cniVersion":"0.4.0","interfaces":[{"name":"eth0"}],
             "ips":[{"version":"4","interface":0,"address":"10.200.0.2/24"}]}
            """
                .getBytes(StandardCharsets.UTF_8),
            CniVersion.V0_4_0);

    assertThat(ipam.ips()).containsExactly(new IpConfig("10.200.0.2/24", null, null));
    assertThat(ipam.toResult().interfaces()).isEmpty();
  }

  @Test
  void writesTheShapeOfItsVersion() {
    IpamResult ipam =
        new IpamResult(
            CniVersion.V0_3_1,
            List.of(new IpConfig("fd00:200::2/64", "fd00:200::1", null)),
            List.of(),
            Dns.EMPTY);

    assertThat(ipam.toJson().toString())
        .isEqualTo(
            "{\"cniVersion\":\"0.3.1\",\"ips\":[{\"version\":\"6\",\"address\":\"fd00:200::2/64\","
                + "\"gateway\":\"fd00:200::1\"}],\"dns\":{}}");
    assertThat(
            new IpamResult(CniVersion.V1_1_0, ipam.ips(), List.of(), Dns.EMPTY).toJson().toString())
        .isEqualTo(
            "{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":\"fd00:200::2/64\","
                + "\"gateway\":\"fd00:200::1\"}]}");
  }
}
