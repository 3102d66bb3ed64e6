package dev.cnioperator.agent.dra;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.DiskHostFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PreparedClaimsTest {
  @TempDir Path dir;

  private PreparedClaims claims() {
    return new PreparedClaims(new DiskHostFiles(), dir.resolve("state/prepared-claims.json"));
  }

  @Test
  void aPreparedClaimsPodsCountForItsNetworksUntilUnpreparedAcrossRestarts() {
    PreparedClaims claims = claims();
    claims.prepared(new PreparedClaims.Claim("c1", "apps", "a", List.of("lan"), List.of("p1")));
    claims.prepared(
        new PreparedClaims.Claim("c2", "apps", "b", List.of("lan", "san"), List.of("p2")));

    assertThat(claims.podsClaiming("lan")).containsExactlyInAnyOrder("p1", "p2");
    assertThat(claims.podsClaiming("san")).containsExactly("p2");
    assertThat(claims.podsClaiming("wan")).isEmpty();

    PreparedClaims restarted = claims();
    assertThat(restarted.podsClaiming("lan")).containsExactlyInAnyOrder("p1", "p2");
    restarted.unprepared("c2");
    assertThat(claims().podsClaiming("lan")).containsExactly("p1");
    assertThat(claims().podsClaiming("san")).isEmpty();
  }

  /** A record that does not parse counts no pod as claiming: addresses are counted as taken. */
  @Test
  void anUnreadableRecordCountsNoPodAsClaimingAndIsReplacedByTheNextPrepare() throws Exception {
    Files.createDirectories(dir.resolve("state"));
    Files.writeString(dir.resolve("state/prepared-claims.json"), "{not json");
    PreparedClaims claims = claims();
    assertThat(claims.podsClaiming("lan")).isEmpty();
    claims.prepared(new PreparedClaims.Claim("c1", "apps", "a", List.of("lan"), List.of("p1")));
    assertThat(claims().podsClaiming("lan")).containsExactly("p1");
  }

  /**
   * A claim's allocation (a network's share of it) is kept; a record written before the agent kept
   * it reads as one device of each network without a share.
   */
  @Test
  void aClaimsAllocationIsKeptAndAnOlderRecordReadsWithoutShares() throws Exception {
    PreparedClaims claims = claims();
    PreparedClaims.Claim shared =
        new PreparedClaims.Claim(
            "c1",
            "apps",
            "a",
            List.of("lan"),
            List.of("p1"),
            List.of(new PreparedClaims.Allocation("lan", "5f0c0d5e-0000-4000-8000-000000000001")));
    claims.prepared(shared);
    assertThat(claims().snapshot()).containsExactly(shared);

    Files.writeString(
        dir.resolve("state/prepared-claims.json"),
        "{\"claims\":[{\"uid\":\"c2\",\"namespace\":\"apps\",\"name\":\"b\","
            + "\"networks\":[\"lan\",\"san\"],\"pods\":[\"p2\"]}]}");
    assertThat(claims().snapshot())
        .singleElement()
        .satisfies(
            c ->
                assertThat(c.allocated())
                    .containsExactly(
                        new PreparedClaims.Allocation("lan", null),
                        new PreparedClaims.Allocation("san", null)));
  }
}
