package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A result read and written again at its own version is the same JSON, unknown fields and all. */
class ResultRoundTripTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        """
        {"cniVersion":"1.1.0","x-top":{"a":[1,2]},
         "interfaces":[{"name":"eth0","x-intf":true,"mac":"0A:58:0A:C8:00:05"}],
         "ips":[{"address":"FD00::5/64","x-ip":"kept","interface":0}],
         "routes":[{"dst":"0.0.0.0/0","x-route":null,"mtu":0}],
         "dns":{"nameservers":["10.200.0.1"],"x-dns":1}}
        """,
        """
        {"cniVersion":"1.0.0","ips":[{"address":"10.200.0.5/24","version":"4"}]}
        """,
        """
        {"cniVersion":"0.4.0","x-top":"kept","ips":[{"version":"4","address":"10.200.0.5/24"}],
         "interfaces":[{"name":"eth0","mtu":1500,"pciID":"0000:00:1f.6"}]}
        """,
        """
        {"cniVersion":"0.3.0","dns":{}}
        """,
        """
        {"cniVersion":"0.2.0","ip4":{"ip":"10.200.0.5/24","x-ip4":1},"x-top":[]}
        """
      })
  void sameVersionRoundTripKeepsEveryField(String json) throws Exception {
    JsonNode original = MAPPER.readTree(json);

    Result parsed = Results.parse(json.getBytes(StandardCharsets.UTF_8), CniVersion.V1_1_0);
    Result reparsed = Results.parse(parsed.toBytes(), CniVersion.V1_1_0);

    assertThat(parsed.toJson()).isEqualTo(original);
    assertThat(reparsed.toJson()).isEqualTo(original);
    assertThat(reparsed).isEqualTo(parsed);
  }

  @Test
  void unknownFieldsDoNotSurviveAConversionAsInLibcni() {
    Result parsed =
        Results.parse(
            "{\"cniVersion\":\"1.1.0\",\"x-top\":1,\"ips\":[{\"address\":\"10.200.0.5/24\"}]}"
                .getBytes(StandardCharsets.UTF_8),
            null);

    ObjectNode converted = parsed.convertTo(CniVersion.V1_0_0).toJson();

    assertThat(converted.has("x-top")).isFalse();
    assertThat(parsed.convertTo(CniVersion.V1_0_0).raw()).isNull();
  }

  @Test
  void toJsonHandsOutACopy() {
    Result parsed =
        Results.parse("{\"cniVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8), null);

    parsed.toJson().put("cniVersion", "0.0.0");
    parsed.raw().put("cniVersion", "0.0.0");

    assertThat(parsed.toJson().get("cniVersion").asText()).isEqualTo("1.0.0");
  }

  @Test
  void resultBuiltInCodeIsWrittenInLibcniOrder() throws Exception {
    Result built =
        Result100.of(
            CniVersion.V1_1_0,
            java.util.List.of(new Interface("eth0", null, 1400, "/var/run/netns/x", null, null)),
            java.util.List.of(new IpConfig("10.200.0.5/24", "10.200.0.1", 0)),
            java.util.List.of(Route.of("0.0.0.0/0", null)),
            Dns.EMPTY);

    assertThat(MAPPER.writeValueAsString(built.toJson()))
        .isEqualTo(
            "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"mtu\":1400,\"name\":\"eth0\","
                + "\"sandbox\":\"/var/run/netns/x\"}],\"ips\":[{\"address\":\"10.200.0.5/24\","
                + "\"gateway\":\"10.200.0.1\",\"interface\":0}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}");
  }

  /** libcni's types040 test "correctly round-trips a 0.2.0 Result", through 0.4.0 and 1.1.0. */
  @ParameterizedTest(name = "through {0}")
  @ValueSource(strings = {"0.3.0", "0.4.0", "1.0.0", "1.1.0"})
  void legacyResultSurvivesARoundTripThroughNewerVersions(String through) throws Exception {
    String legacy =
        "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"1.2.3.30/24\",\"gateway\":\"1.2.3.1\","
            + "\"routes\":[{\"dst\":\"15.5.6.0/24\",\"gw\":\"15.5.6.8\"}]},\"ip6\":{\"ip\":"
            + "\"abcd:1234:ffff::cdde/64\",\"gateway\":\"abcd:1234:ffff::1\",\"routes\":[{\"dst\":"
            + "\"1111:dddd::/80\"}]},\"dns\":{\"nameservers\":[\"1.2.3.4\",\"1::cafe\"],"
            + "\"domain\":\"acompany.com\",\"search\":[\"somedomain.com\"],\"options\":[\"foo\"]}}";
    Result original = Results.parse(legacy.getBytes(StandardCharsets.UTF_8), null);

    Result back =
        original.convertTo(CniVersion.parse(through).orElseThrow()).convertTo(CniVersion.V0_2_0);

    assertThat(MAPPER.writeValueAsString(back.toJson())).isEqualTo(legacy);
  }
}
