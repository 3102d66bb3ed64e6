package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Addresses parse and print as Go's net package does (libcni writes them with it); every case here
 * was checked once against Go 1.26's net.ParseIP / net.ParseCIDR.
 */
class IpAddressTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "10.200.0.5, 10.200.0.5, 4",
    "0.0.0.0, 0.0.0.0, 4",
    "255.255.255.255, 255.255.255.255, 4",
    "::, ::, 6",
    "::1, ::1, 6",
    "FD00:0200:0000:0000:0000:0000:0000:0005, fd00:200::5, 6",
    "fd00:0:0:1:0:0:0:1, fd00:0:0:1::1, 6",
    "fd00:0:1:0:1:0:1:0, fd00:0:1:0:1:0:1:0, 6",
    "1:0:0:2:0:0:0:3, 1:0:0:2::3, 6",
    "1:2:3:4:5:6:7::, 1:2:3:4:5:6:7:0, 6",
    "::ffff:10.200.0.5, 10.200.0.5, 4",
    "::10.200.0.5, ::ac8:5, 6",
    "64:ff9b::10.200.0.5, 64:ff9b::ac8:5, 6",
  })
  void parsesAndPrintsLikeGo(String text, String printed, String family) {
    IpAddress ip = IpAddress.parse(text).orElseThrow();

    assertThat(ip.toString()).isEqualTo(printed);
    assertThat(ip.family()).isEqualTo(family);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "10.200.0",
        "10.200.0.5.1",
        "10.200.0.256",
        "10.200.0.05",
        "10.200.0.-1",
        " 10.200.0.5",
        "fd00::1::2",
        ":::",
        "fd00:12345::1",
        "fd00::g",
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7",
        "1:2:3:4::5:6:7:8",
        "fe80::1%eth0",
        "10.200.0.5::",
        "::ffff:10.200.0.256",
        "localhost"
      })
  void refusesWhatGoRefuses(String text) {
    assertThat(IpAddress.parse(text)).isEmpty();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "10.200.0.5/24, 10.200.0.5/24",
    "10.200.0.5/024, 10.200.0.5/24",
    "0.0.0.0/0, 0.0.0.0/0",
    "FD00::5/64, fd00::5/64",
    "::/0, ::/0",
    "::ffff:10.200.0.5/120, 10.200.0.5/24",
    "::ffff:10.200.0.5/90, 10.200.0.5/0",
    "10.200.0.5/0024, 10.200.0.5/24",
  })
  void cidrKeepsHostBitsAndPrintsLikeGo(String text, String printed) {
    assertThat(Cidr.parse(text).orElseThrow().toString()).isEqualTo(printed);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "10.200.0.5",
        "10.200.0.5/",
        "10.200.0.5/33",
        "10.200.0.5/a",
        "/24",
        "fd00::/129",
        "10.200.0.5/-1"
      })
  void refusesBadCidrs(String text) {
    assertThat(Cidr.parse(text)).isEmpty();
  }
}
