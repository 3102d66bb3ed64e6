package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniVersion;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Decoding what a failing plugin prints on stdout into code, msg and details. */
class PluginErrorsTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void decodesTheSpecExample() {
    var error =
        PluginErrors.decode(
            utf8(
                """
                {
                  "cniVersion": "1.1.0",
                  "code": 7,
                  "msg": "Invalid Configuration",
                  "details": "Network 192.168.0.0/31 too small to allocate from."
                }
                """));

    assertThat(error)
        .contains(
            new ErrorResult(
                7, "Invalid Configuration", "Network 192.168.0.0/31 too small to allocate from."));
    assertThat(error.orElseThrow().wellKnownCode()).contains(CniErrorCode.INVALID_NETWORK_CONFIG);
  }

  @Test
  void pluginOwnCodeAndNoDetails() {
    var error = PluginErrors.decode(utf8("{\"code\":100,\"msg\":\"failed to set up IPAM\"}"));

    assertThat(error).contains(new ErrorResult(100, "failed to set up IPAM", ""));
    assertThat(error.orElseThrow().wellKnownCode()).isEmpty();
    assertThat(error.orElseThrow().toException().code()).isEqualTo(100);
  }

  @Test
  void messageWithoutCodeIsCodeZeroAsInLibcni() {
    assertThat(PluginErrors.decode(utf8("{\"msg\":\"boom\"}")))
        .contains(new ErrorResult(0, "boom", ""));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "panic: runtime error",
        "[]",
        "{}",
        "{\"cniVersion\":\"1.0.0\",\"ips\":[]}",
        "{\"code\":\"7\",\"msg\":\"x\"}",
        "{\"code\":-1,\"msg\":\"x\"}",
        "{\"code\":7,\"msg\":{\"text\":\"x\"}}",
        "{\"code\":7} trailing"
      })
  void anythingElseIsNotAnErrorObject(String stdout) {
    assertThat(PluginErrors.decode(utf8(stdout))).isEmpty();
  }

  @Test
  void writesTheWireShape() {
    assertThat(new ErrorResult(11, "busy", "").toJson(CniVersion.V1_1_0).toString())
        .isEqualTo("{\"cniVersion\":\"1.1.0\",\"code\":11,\"msg\":\"busy\"}");
  }
}
