package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** VERSION answers as real plugins print them, decoded as libcni's PluginDecoder does. */
class VersionResultTest {

  private static VersionResult parse(String json) {
    return Results.parseVersion(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void utf8sFormOfASurrogateIsRefusedLikeAnyOtherByteThatIsNotUtf8() {
    byte[] output =
        "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"1.0.0\",\"1.1.0@@@\"]}"
            .getBytes(StandardCharsets.UTF_8);
    // @@@ becomes ED A6 96: the surrogate U+D996 encoded as UTF-8, which UTF-8 does not allow.
    int at = new String(output, StandardCharsets.UTF_8).indexOf("@@@");
    output[at] = (byte) 0xED;
    output[at + 1] = (byte) 0xA6;
    output[at + 2] = (byte) 0x96;

    assertThatThrownBy(() -> Results.parseVersion(output))
        .isInstanceOfSatisfying(
            CniException.class,
            e -> {
              assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
              assertThat(e.getMessage()).contains("VERSION output is not valid JSON");
              assertThat(e.details()).startsWith("invalid UTF-8 at byte " + at + ";");
            });
  }

  @Test
  void debianPluginsAnswerOneZeroZeroWhateverTheyAreAskedIn() {
    // /usr/lib/cni/bridge (Debian containernetworking-plugins) asked with cniVersion 1.1.0.
    VersionResult v =
        parse(
            "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":"
                + "[\"0.1.0\",\"0.2.0\",\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\"]}");

    assertThat(v.cniVersion()).isEqualTo(CniVersion.V1_0_0);
    assertThat(v.supports(CniVersion.V1_0_0)).isTrue();
    assertThat(v.supports(CniVersion.V1_1_0)).isFalse();
    assertThat(v.newestSupported()).contains(CniVersion.V1_0_0);
  }

  @Test
  void zeroFourZeroEraPlugin() {
    VersionResult v =
        parse(
            "{\"cniVersion\":\"0.4.0\",\"supportedVersions\":"
                + "[\"0.1.0\",\"0.2.0\",\"0.3.0\",\"0.3.1\",\"0.4.0\"]}");

    assertThat(v.newestSupported()).contains(CniVersion.V0_4_0);
    assertThat(v.knownSupportedVersions())
        .containsExactly(
            CniVersion.V0_1_0,
            CniVersion.V0_2_0,
            CniVersion.V0_3_0,
            CniVersion.V0_3_1,
            CniVersion.V0_4_0);
  }

  @Test
  void oneOneZeroPlugin() {
    VersionResult v =
        parse(
            """
            {
                "cniVersion": "1.1.0",
                "supportedVersions": [ "0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0" ]
            }
            """);

    assertThat(v.supports(CniVersion.V1_1_0)).isTrue();
    assertThat(v.newestSupported()).contains(CniVersion.V1_1_0);
  }

  @Test
  void legacyZeroTwoZeroPluginWithoutListSupportsZeroOneAndZeroTwo() {
    VersionResult v = parse("{\"cniVersion\":\"0.2.0\"}");

    assertThat(v.supportedVersions()).containsExactly("0.1.0", "0.2.0");
    assertThat(v.newestSupported()).isEmpty();
  }

  @Test
  void versionsFromTheFutureAreKeptAsTextAndIgnoredForSelection() {
    VersionResult v =
        parse("{\"cniVersion\":\"1.2.0\",\"supportedVersions\":[\"1.1.0\",\"1.2.0\"]}");

    assertThat(v.cniVersion()).isEqualTo(new CniVersion(1, 2, 0));
    assertThat(v.supportedVersions()).containsExactly("1.1.0", "1.2.0");
    assertThat(v.newestSupported()).contains(CniVersion.V1_1_0);
  }

  @Test
  void pluginWithoutVersionCommandSupportsZeroOneZero() {
    assertThat(VersionResult.ofPluginWithoutVersionCommand().supportedVersions())
        .isEqualTo(List.of("0.1.0"));
  }

  @Test
  void missingSupportedVersionsAfterZeroTwoZeroIsRefused() {
    assertThatThrownBy(() -> parse("{\"cniVersion\":\"0.3.0\"}"))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("supportedVersions is missing")
        .extracting(e -> ((CniException) e).code())
        .isEqualTo(CniErrorCode.DECODING_FAILURE.code());
  }

  @Test
  void missingCniVersionIsRefused() {
    assertThatThrownBy(() -> parse("{\"supportedVersions\":[\"1.0.0\"]}"))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("cniVersion is missing");
  }

  @Test
  void malformedAnswersAreTypedErrors() {
    assertThatThrownBy(() -> parse("{\"cniVersion\":\"one\",\"supportedVersions\":[\"1.0.0\"]}"))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("cniVersion is not a version");
    assertThatThrownBy(() -> parse("{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[1]}"))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("supportedVersions[0] must be a string");
    assertThatThrownBy(() -> parse("unknown CNI_COMMAND: VERSION"))
        .isInstanceOf(CniException.class)
        .extracting(e -> ((CniException) e).code())
        .isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
  }

  @Test
  void writesWhatItReads() {
    String json = "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[\"1.0.0\",\"1.1.0\"]}";

    assertThat(parse(json).toJson().toString()).isEqualTo(json);
  }
}
