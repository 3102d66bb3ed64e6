package dev.cnioperator.agent.dra;

import static dev.cnioperator.agent.dra.ClaimDeviceStatusTest.PTP_RESULT;
import static dev.cnioperator.agent.dra.ClaimDeviceStatusTest.entry;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.DiskHostFiles;
import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.cni.cache.CachedAttachment;
import io.fabric8.kubernetes.api.model.resource.v1.AllocatedDeviceStatus;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClaimStatusWriterTest {
  @TempDir Path dir;

  private record Write(String claim, String manager, List<AllocatedDeviceStatus> entries) {}

  private final List<Write> writes = new ArrayList<>();
  private final AtomicBoolean refuse = new AtomicBoolean();
  private PreparedClaims prepared;
  private ClaimStatusWriter writer;
  private List<CachedAttachment> cache;

  @BeforeEach
  void setUp() {
    prepared = new PreparedClaims(new DiskHostFiles(), dir.resolve("prepared-claims.json"));
    writer =
        new ClaimStatusWriter(
            "node-1",
            prepared,
            null,
            (claim, manager, entries) -> {
              if (refuse.get()) {
                throw new KubernetesClientException("the server is unavailable");
              }
              writes.add(new Write(claim.name(), manager, entries));
            });
    cache = new ArrayList<>();
  }

  private void pass(String network) {
    writer.write(network, () -> List.copyOf(cache));
  }

  private static PreparedClaims.Claim claim(String uid, String name, String... networks) {
    return new PreparedClaims.Claim(uid, "apps", name, List.of(networks), List.of("p1"));
  }

  /**
   * Written once the pod has its attachment, not again while nothing changed, again on a change,
   * emptied when the attachment goes; nothing read or written for a network without a claim.
   */
  @Test
  void aClaimsEntriesAreWrittenOnlyWhenTheyChange() {
    prepared.prepared(claim("u1", "web-lan", "lan"));
    pass("lan");
    assertThat(writes).as("the pod has no attachment yet").isEmpty();

    cache.add(entry("c1", "p1", "eth0", PTP_RESULT));
    pass("lan");
    assertThat(writes)
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.claim()).isEqualTo("web-lan");
              assertThat(w.manager()).isEqualTo(NetworkDevices.DRIVER + "/node-1/lan");
              assertThat(w.entries()).singleElement();
            });

    pass("lan");
    pass("lan");
    assertThat(writes).as("a quiet node writes nothing").hasSize(1);

    writer.write(
        "san",
        () -> {
          throw new AssertionError("no claim on san: its cache is not read");
        });

    cache.clear();
    cache.add(entry("c2", "p1", "eth0", null));
    pass("lan");
    assertThat(writes).hasSize(2);
    assertThat(writes.get(1).entries().get(0).getNetworkData().getIps()).isNullOrEmpty();

    cache.clear();
    pass("lan");
    assertThat(writes).hasSize(3);
    assertThat(writes.get(2).entries()).as("the attachment gone: taken out").isEmpty();
    pass("lan");
    assertThat(writes).hasSize(3);
  }

  /** A write the API server refused is made again on the next pass. */
  @Test
  void aFailedWriteIsMadeAgainNextPass() {
    prepared.prepared(claim("u1", "web-lan", "lan"));
    cache.add(entry("c1", "p1", "eth0", PTP_RESULT));
    refuse.set(true);
    pass("lan");
    assertThat(writes).isEmpty();

    refuse.set(false);
    pass("lan");
    assertThat(writes).hasSize(1);
  }

  /** Unprepared, the claim is forgotten: prepared again, it is written again. */
  @Test
  void anUnpreparedClaimIsForgotten() {
    prepared.prepared(claim("u1", "web-lan", "lan"));
    cache.add(entry("c1", "p1", "eth0", PTP_RESULT));
    pass("lan");
    prepared.unprepared("u1");
    writer.unprepared("u1");
    pass("lan");
    assertThat(writes).as("not prepared: not written").hasSize(1);

    prepared.prepared(claim("u1", "web-lan", "lan"));
    pass("lan");
    assertThat(writes).hasSize(2);
  }

  /** Each network's entries go under a manager of their own, so that one never takes another's. */
  @Test
  void eachNetworkOfAClaimIsWrittenUnderItsOwnManager() {
    prepared.prepared(claim("u1", "web", "lan", "san"));
    cache.add(entry("c1", "p1", "eth0", PTP_RESULT));
    pass("lan");
    pass("san");
    assertThat(writes)
        .extracting(Write::manager)
        .containsExactly(
            NetworkDevices.DRIVER + "/node-1/lan", NetworkDevices.DRIVER + "/node-1/san");
    assertThat(writes.get(1).entries())
        .singleElement()
        .extracting(e -> e.getDevice())
        .isEqualTo("san");
  }

  @Test
  void aFieldManagerFitsTheApiServersLimit() {
    String longNode = "n".repeat(240) + ".example.com";
    String manager = ClaimStatusWriter.fieldManager(longNode, "l".repeat(63));
    assertThat(manager)
        .hasSizeLessThanOrEqualTo(ClaimStatusWriter.MAX_FIELD_MANAGER)
        .startsWith(NetworkDevices.DRIVER + "/")
        .endsWith("/" + "l".repeat(63));
    assertThat(ClaimStatusWriter.fieldManager(longNode + "x", "lan"))
        .isNotEqualTo(ClaimStatusWriter.fieldManager(longNode, "lan"));
  }

  /** The apply holds the claim's identity and its entries, nothing of its spec or allocation. */
  @Test
  void theApplyHoldsOnlyTheEntries() {
    PreparedClaims.Claim c = claim("u1", "web-lan", "lan");
    String json =
        Serialization.asJson(
            ClaimStatusWriter.body(
                c,
                ClaimDeviceStatus.of(
                    c, "lan", "node-1", List.of(entry("c1", "p1", "eth0", PTP_RESULT)))));
    assertThat(json)
        .isEqualTo(
            "{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":"
                + "{\"name\":\"web-lan\",\"namespace\":\"apps\",\"uid\":\"u1\"},\"status\":{\"devices\":"
                + "[{\"device\":\"lan\",\"driver\":\"networks.cnioperator.dev\",\"networkData\":"
                + "{\"hardwareAddress\":\"0a:58:0a:01:00:05\",\"interfaceName\":\"eth0\",\"ips\":"
                + "[\"10.1.0.5/24\",\"2001:db8::5/64\"]},\"pool\":\"node-1\"}]}}");
    assertThat(Serialization.asJson(ClaimStatusWriter.body(c, List.of())))
        .doesNotContain("devices");
  }
}
