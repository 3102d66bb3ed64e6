package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Outputs captured from the real loopback plugin (Debian's containernetworking-plugins and the
 * v1.9.0 reference build) in a test namespace: they do not always match the spec's shape for the
 * version they claim, and must still read as libcni reads them.
 */
class RealWorldOutputTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void referenceLoopbackAtZeroFourZeroLeavesOutIpVersionWhichIsDerived() {
    Result r =
        Results.parse(
            utf8(
                """
                {
                    "cniVersion": "0.4.0",
                    "interfaces": [
                        {
                            "mac": "00:00:00:00:00:00",
                            "name": "lo",
                            "sandbox": "/var/run/netns/cth2probe"
                        }
                    ],
                    "ips": [
                        {
                            "address": "127.0.0.1/8",
                            "interface": 0
                        },
                        {
                            "address": "::1/128",
                            "interface": 0
                        }
                    ]
                }
                """),
            CniVersion.V0_4_0);

    assertThat(r).isInstanceOf(Result040.class);
    assertThat(r.ips()).extracting(IpConfig::ipVersion).containsExactly("4", "6");
    assertThat(r.convertTo(CniVersion.V0_3_1).toJson().toString())
        .isEqualTo(
            "{\"cniVersion\":\"0.3.1\",\"interfaces\":[{\"name\":\"lo\",\"mac\":\"00:00:00:00:00:00\","
                + "\"sandbox\":\"/var/run/netns/cth2probe\"}],\"ips\":[{\"version\":\"4\","
                + "\"interface\":0,\"address\":\"127.0.0.1/8\"},{\"version\":\"6\",\"interface\":0,"
                + "\"address\":\"::1/128\"}],\"dns\":{}}");
  }

  @Test
  void debianLoopbackAtOneZeroZeroWritesAnEmptyDns() {
    Result r =
        Results.parse(
            utf8(
                "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"lo\",\"mac\":\"00:00:00:00:00:00\","
                    + "\"sandbox\":\"/var/run/netns/cth2probe\"}],\"ips\":[{\"interface\":0,"
                    + "\"address\":\"127.0.0.1/8\"},{\"interface\":0,\"address\":\"::1/128\"}],"
                    + "\"dns\":{}}"),
            CniVersion.V1_0_0);

    assertThat(r.dns().isEmpty()).isTrue();
    assertThat(r.interfaces().get(0).sandbox()).isEqualTo("/var/run/netns/cth2probe");
    assertThat(r.toCanonicalJson().has("dns")).isFalse();
  }

  @Test
  void loopbackAskedForZeroTwoZeroPrintsTheNewShapeWhichReadsAsAResultWithoutAddresses() {
    // Both plugin sets label a 0.4.0-shaped result "0.2.0"; libcni's types020 sees no ip4/ip6.
    String printed =
        "{\"cniVersion\":\"0.2.0\",\"interfaces\":[{\"name\":\"lo\",\"mac\":\"00:00:00:00:00:00\","
            + "\"sandbox\":\"/var/run/netns/cth2probe\"}],\"ips\":[{\"interface\":0,"
            + "\"address\":\"127.0.0.1/8\"}],\"dns\":{}}";

    Result r = Results.parse(utf8(printed), CniVersion.V0_2_0);

    assertThat(r).isInstanceOf(Result020.class);
    assertThat(r.ips()).isEmpty();
    assertThat(r.toJson().toString()).isEqualTo(printed);
  }

  @Test
  void debianLoopbackRefusingOneOneZeroIsAnIncompatibleVersionError() {
    ErrorResult error =
        PluginErrors.decode(
                utf8(
                    """
                    {
                        "code": 1,
                        "msg": "incompatible CNI versions",
                        "details": "config is \\"1.1.0\\", plugin supports [\\"0.1.0\\" \\"0.2.0\\" \\"0.3.0\\" \\"0.3.1\\" \\"0.4.0\\" \\"1.0.0\\"]"
                    }
                    """))
            .orElseThrow();

    assertThat(error.wellKnownCode()).contains(CniErrorCode.INCOMPATIBLE_VERSION);
    assertThat(error.details()).startsWith("config is \"1.1.0\"");
  }
}
