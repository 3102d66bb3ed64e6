package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResultsTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void readsACurrentResultIntoTheTypedView() {
    Result r =
        Results.parse(
            utf8(
                """
                {"cniVersion":"1.1.0",
                 "interfaces":[{"name":"eth0","mac":"0a:58:0a:c8:00:05","mtu":1450,
                                "sandbox":"/var/run/netns/t1"}],
                 "ips":[{"address":"10.200.0.5/24","gateway":"10.200.0.1","interface":0}],
                 "routes":[{"dst":"0.0.0.0/0","table":100,"scope":0}],
                 "dns":{"nameservers":["10.200.0.1"]}}
                """),
            CniVersion.V1_1_0);

    assertThat(r).isInstanceOf(Result100.class);
    assertThat(r.cniVersion()).isEqualTo(CniVersion.V1_1_0);
    assertThat(r.interfaces())
        .containsExactly(
            new Interface("eth0", "0a:58:0a:c8:00:05", 1450, "/var/run/netns/t1", null, null));
    assertThat(r.ips()).containsExactly(new IpConfig("10.200.0.5/24", "10.200.0.1", 0));
    assertThat(r.routes()).containsExactly(new Route("0.0.0.0/0", null, null, null, null, 100, 0));
    assertThat(r.dns().nameservers()).containsExactly("10.200.0.1");
  }

  @Test
  void resultWithoutVersionTakesTheRequestVersionAsLibcniInvokeDoes() {
    Result r =
        Results.parse(utf8("{\"ips\":[{\"address\":\"10.200.0.5/24\"}]}"), CniVersion.V1_0_0);

    assertThat(r.cniVersion()).isEqualTo(CniVersion.V1_0_0);
    assertThat(r.toJson().get("cniVersion").asText()).isEqualTo("1.0.0");
  }

  @Test
  void malformedAddressIsADecodingFailureNamingTheField() {
    assertThatThrownBy(
            () ->
                Results.parse(
                    utf8("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.200.0.5\"}]}"),
                    CniVersion.V1_0_0))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("ips[0].address is not a CIDR")
        .extracting(e -> ((CniException) e).code())
        .isEqualTo(CniErrorCode.DECODING_FAILURE.code());
  }

  @Test
  void nullOutputIsAnEmptyResultOfTheRequestVersionAsInLibcni() {
    Result r = Results.parse(utf8("null"), CniVersion.V0_4_0);

    assertThat(r).isInstanceOf(Result040.class);
    assertThat(r.cniVersion()).isEqualTo(CniVersion.V0_4_0);
    assertThat(r.ips()).isEmpty();
  }

  @Test
  void resultStatingItsVersionKeepsItWhateverTheRequestSaid() {
    Result r = Results.parse(utf8("{\"cniVersion\":\"0.3.1\"}"), CniVersion.V1_1_0);

    assertThat(r.cniVersion()).isEqualTo(CniVersion.V0_3_1);
  }
}
