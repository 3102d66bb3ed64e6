package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {

  @Test
  void portsComeFromBelowTheEphemeralRangeNeverTwiceAndAreFree() throws Exception {
    int ephemeralLow = FreePorts.ephemeralLow();
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      int port = FreePorts.onLoopback();
      assertThat(port).isBetween(20000, ephemeralLow - 1);
      assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
    }
    int port = FreePorts.onLoopback();
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      assertThat(s.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void aPortInUseIsSkipped() throws Exception {
    int port = FreePorts.onLoopback();
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port + 1));
      assertThat(FreePorts.onLoopback()).isNotEqualTo(port + 1);
    }
  }
}
