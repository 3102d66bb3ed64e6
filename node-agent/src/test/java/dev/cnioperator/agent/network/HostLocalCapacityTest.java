package dev.cnioperator.agent.network;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.agent.network.HostLocalCapacity.Count;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostLocalCapacityTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The JSON of {@code text}, written with ' for ". */
  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text.replace('\'', '"'));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  /** A host-local ipam object with {@code ranges}, written with ' for ". */
  private static JsonNode ranges(String ranges) {
    return json("{'type':'host-local','ranges':" + ranges + "}");
  }

  private static Optional<Count> count(JsonNode ipam, String... reserved) {
    return HostLocalCapacity.of(ipam, List.of(reserved));
  }

  @Test
  void aSlash24WithDefaultsLeavesOutNetworkGatewayAndBroadcast() {
    // .0 is the network, .1 the default gateway, .255 the broadcast: .2 to .254 remain.
    JsonNode ipam = ranges("[[{'subnet':'10.1.0.0/24'}]]");

    assertThat(count(ipam)).contains(new Count(253, 253));
    assertThat(count(ipam, "10.1.0.2", "10.1.0.254")).contains(new Count(253, 251));
  }

  @Test
  void anExplicitRangeCountsInclusivelyWithTheGatewayOutside() {
    JsonNode ipam =
        ranges("[[{'subnet':'10.1.0.0/24','rangeStart':'10.1.0.10','rangeEnd':'10.1.0.19'}]]");

    assertThat(count(ipam)).contains(new Count(10, 10));
  }

  @Test
  void aGatewayInsideTheRangeIsNeverHandedOut() {
    JsonNode ipam =
        ranges(
            "[[{'subnet':'10.1.0.0/24','rangeStart':'10.1.0.10','rangeEnd':'10.1.0.19',"
                + "'gateway':'10.1.0.15'}]]");

    assertThat(count(ipam)).contains(new Count(9, 9));
    // A file at the gateway (host-local never writes one) is not taken off a second time.
    assertThat(count(ipam, "10.1.0.10", "10.1.0.15")).contains(new Count(9, 8));
  }

  @Test
  void anExplicitRangeMayStartAtTheNetworkAndEndAtTheBroadcast() {
    // host-local only requires both in the subnet: all 256 but the default gateway.
    JsonNode ipam =
        ranges("[[{'subnet':'10.1.0.0/24','rangeStart':'10.1.0.0','rangeEnd':'10.1.0.255'}]]");

    assertThat(count(ipam)).contains(new Count(255, 255));
  }

  @Test
  void theLegacyTopLevelRangeIsOneRangeSet() {
    JsonNode ipam =
        json(
            "{'type':'host-local','subnet':'10.2.0.0/16','rangeStart':'10.2.1.0',"
                + "'rangeEnd':'10.2.1.255','gateway':'10.2.0.1','dataDir':'/run/x'}");

    assertThat(count(ipam, "10.2.1.7", "10.2.0.7")).contains(new Count(256, 255));
    assertThat(count(json("{'type':'host-local','subnet':'10.2.0.0/24'}")))
        .contains(new Count(253, 253));
  }

  @Test
  void theLegacyRangeIsASetBesideRanges() {
    // config.go LoadIPAMConfig prepends the legacy range to ranges: both are allocated from.
    JsonNode ipam =
        json("{'type':'host-local','subnet':'10.2.0.0/24','ranges':[[{'subnet':'fd00:2::/125'}]]}");

    assertThat(count(ipam)).contains(new Count(6, 6));
  }

  @Test
  void rangesOfOneSetAddUp() {
    JsonNode ipam =
        ranges(
            "[[{'subnet':'10.3.0.0/24'},"
                + "{'subnet':'10.4.0.0/24','rangeStart':'10.4.0.100','rangeEnd':'10.4.0.149'}]]");

    assertThat(count(ipam, "10.3.0.2", "10.4.0.100")).contains(new Count(303, 301));
  }

  @Test
  void dualStackIsTheSmallerSetAndEachSetCountsOnlyItsOwnReservations() {
    // fd00:5::/125: ::1 to ::7 less the gateway ::1, 6; the IPv4 set has 253.
    JsonNode ipam = ranges("[[{'subnet':'10.5.0.0/24'}],[{'subnet':'fd00:5::/125'}]]");

    assertThat(count(ipam)).contains(new Count(6, 6));
    // Three IPv4 reservations leave the IPv4 set 250 and the IPv6 set its 6.
    assertThat(count(ipam, "10.5.0.2", "10.5.0.3", "10.5.0.4")).contains(new Count(6, 6));
    assertThat(count(ipam, "10.5.0.2", "10.5.0.3", "10.5.0.4", "fd00:5::2"))
        .contains(new Count(6, 5));
  }

  @Test
  void reservationsOutsideEveryRangeAndNonAddressesAreIgnored() {
    JsonNode ipam =
        ranges("[[{'subnet':'10.1.0.0/24','rangeStart':'10.1.0.10','rangeEnd':'10.1.0.19'}]]");

    assertThat(
            count(
                ipam,
                "10.1.0.5",
                "10.1.0.20",
                "10.9.9.9",
                "fd00::11",
                "lock",
                "last_reserved_ip.0",
                "localhost",
                ""))
        .contains(new Count(10, 10));
  }

  @Test
  void aReservationCountsOnceHoweverItIsSpelled() {
    JsonNode ipam = ranges("[[{'subnet':'10.1.0.0/24'}],[{'subnet':'fd00::/120'}]]");

    assertThat(count(ipam, "10.1.0.5", "10.1.0.5", "fd00::5", "fd00:0:0::5", "FD00::5"))
        .contains(new Count(253, 252));
  }

  @Test
  void anIpv6Slash64SaturatesAtLongMax() {
    // ::1 to ::ffff:ffff:ffff:ffff less the gateway ::1 is 2^64 - 2, above Long.MAX_VALUE,
    // 2^63 - 1: both saturate.
    JsonNode ipam = ranges("[[{'subnet':'fd00:64::/64'}]]");

    assertThat(count(ipam, "fd00:64::2")).contains(new Count(Long.MAX_VALUE, Long.MAX_VALUE));
  }

  @Test
  void anIpv6Slash66IsCountedExactly() {
    // 2^62 - 1 addresses after the network address (no broadcast in IPv6), less the gateway.
    JsonNode ipam = ranges("[[{'subnet':'fd00:66::/66'}]]");

    assertThat(count(ipam, "fd00:66::2", "fd00:66::3fff:ffff:ffff:ffff"))
        .contains(new Count((1L << 62) - 2, (1L << 62) - 4));
  }

  @Test
  void theSmallestSubnetsFollowHostLocal() {
    // range.go Range.Canonicalize: a /31 or /32 (IPv6 /127, /128) is "too small to allocate
    // from", so host-local refuses the configuration: no count.
    assertThat(count(ranges("[[{'subnet':'10.1.0.0/31'}]]"))).isEmpty();
    assertThat(count(ranges("[[{'subnet':'10.1.0.0/32'}]]"))).isEmpty();
    assertThat(count(ranges("[[{'subnet':'fd00::/127'}]]"))).isEmpty();
    assertThat(count(ranges("[[{'subnet':'fd00::/128'}]]"))).isEmpty();
    // A /30 is allowed: .1 is the gateway, .3 the broadcast, .2 remains.
    assertThat(count(ranges("[[{'subnet':'10.1.0.0/30'}]]"))).contains(new Count(1, 1));
    // A /126: ::1 to ::3 less the gateway ::1.
    assertThat(count(ranges("[[{'subnet':'fd00::/126'}]]"))).contains(new Count(2, 2));
  }

  @Test
  void usableNeverGoesBelowZeroNorFreeBelowZero() {
    // The range is only the gateway: nothing to hand out.
    JsonNode ipam =
        ranges("[[{'subnet':'10.1.0.0/24','rangeStart':'10.1.0.1','rangeEnd':'10.1.0.1'}]]");

    assertThat(count(ipam, "10.1.0.1")).contains(new Count(0, 0));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{'type':'dhcp'}",
        "{'type':'static','addresses':[{'address':'10.1.0.5/24'}]}",
        "{'type':'whereabouts','range':'10.1.0.0/24'}",
        "{'subnet':'10.1.0.0/24'}",
        "{'type':['host-local'],'subnet':'10.1.0.0/24'}",
        "['host-local']",
        "'host-local'",
        "null"
      })
  void anotherIpamIsNotCounted(String ipam) {
    assertThat(count(json(ipam))).isEmpty();
  }

  @Test
  void noIpamIsNotCounted() {
    assertThat(HostLocalCapacity.of(null, List.of())).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{'type':'host-local'}",
        "{'type':'host-local','ranges':[]}",
        "{'type':'host-local','ranges':[[]]}",
        "{'type':'host-local','ranges':{'subnet':'10.1.0.0/24'}}",
        "{'type':'host-local','ranges':[{'subnet':'10.1.0.0/24'}]}",
        "{'type':'host-local','ranges':[[{'rangeStart':'10.1.0.2'}]]}",
        "{'type':'host-local','rangeStart':'10.1.0.2','rangeEnd':'10.1.0.9'}",
        "{'type':'host-local','subnet':''}",
        "{'type':'host-local','subnet':24}",
        "{'type':'host-local','subnet':'10.1.0.0'}",
        "{'type':'host-local','subnet':'10.1.0.0/33'}",
        "{'type':'host-local','subnet':'10.1.0/24'}",
        "{'type':'host-local','subnet':'010.1.0.0/24'}",
        "{'type':'host-local','subnet':'10.1.0.0/24/8'}",
        "{'type':'host-local','subnet':'fd00::/129'}",
        "{'type':'host-local','subnet':'10.1.0.5/24'}",
        "{'type':'host-local','subnet':'$(node.podCIDR)'}",
        "{'type':'host-local','subnet':'localhost/24'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','rangeStart':'$(node.start)'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','rangeStart':'10.1.1.2'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','rangeEnd':'10.1.1.2'}",
        "{'type':'host-local','subnet':'10.1.0.0/24',"
            + "'rangeStart':'10.1.0.9','rangeEnd':'10.1.0.2'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','rangeStart':'10.1.0.255'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','rangeStart':'fd00::2'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','gateway':'gateway.example.com'}",
        "{'type':'host-local','subnet':'10.1.0.0/24','gateway':'fe80::1%eth0'}",
        "{'type':'host-local','ranges':[[{'subnet':'10.1.0.0/24'},{'subnet':'fd00::/120'}]]}",
        "{'type':'host-local','ranges':[[{'subnet':'10.1.0.0/24'},{'subnet':'10.1.0.0/25'}]]}",
        "{'type':'host-local','ranges':[[{'subnet':'10.1.0.0/24'}],[{'subnet':'10.1.0.0/24'}]]}",
        "{'type':'host-local','subnet':'10.1.0.0/24','ranges':[[{'subnet':'10.1.0.0/16'}]]}",
        "{'type':'host-local','ranges':[[{'subnet':'10.1.0.0/24'}],[{'subnet':'bad'}]]}"
      })
  void aMalformedHostLocalConfigIsNotCounted(String ipam) {
    assertThat(count(json(ipam), "10.1.0.5")).isEmpty();
  }
}
