package dev.cnioperator.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MetricsAddressTest {

  @Test
  void aStarIsEveryAddressAsBeforeTheFlagExisted() {
    assertThat(Main.metricsAddress("*", 8080)).isEqualTo(new InetSocketAddress(8080));
    assertThat(Main.metricsAddress("*", 8080).getAddress().isAnyLocalAddress()).isTrue();
  }

  @Test
  void anIpLiteralIsThatAddress() {
    assertThat(Main.metricsAddress("10.0.0.7", 8080).getAddress().getHostAddress())
        .isEqualTo("10.0.0.7");
    assertThat(Main.metricsAddress("0.0.0.0", 9).getAddress().isAnyLocalAddress()).isTrue();
    assertThat(Main.metricsAddress("fd00::7", 8080).getAddress().getHostAddress())
        .isEqualTo("fd00:0:0:0:0:0:0:7");
    assertThat(Main.metricsAddress("[::1]", 8080).getAddress().isLoopbackAddress()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost", "node-1.example", "256.1.1.1", "10.0.0", "fd00:::zz", ""})
  void anythingElseIsRefusedNamingTheFlag(String address) {
    assertThatThrownBy(() -> Main.metricsAddress(address, 8080))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--metrics-bind-address must be * or an IP address of this host, got '"
                + address
                + "'");
  }
}
