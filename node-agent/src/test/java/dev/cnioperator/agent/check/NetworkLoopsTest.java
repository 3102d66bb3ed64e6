package dev.cnioperator.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.ManagedNetwork;
import dev.cnioperator.agent.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class NetworkLoopsTest {
  private static final String SHA = "a".repeat(64);
  private static final Instant NOW = Instant.parse("2026-11-23T10:00:00Z");

  private static final ManagedNetwork NETWORK =
      new ManagedNetwork(
          new DesiredConflist("net", "50-net.conflist", SHA, "{}"),
          null,
          null,
          new NetworkPlugins("net", "1.0.0", List.of()),
          new CheckSettings(true, Duration.ofSeconds(60)),
          new CleanupSettings(false, Duration.ofSeconds(300), false, 0.5),
          ManagedNetwork.Proof.ATTACHMENT);

  private static ProbeReport report(String sha, ProbeResult result, Instant at) {
    return new ProbeReport().withSha256(sha).withResult(result).withTime(at.toString());
  }

  @Test
  void newContentIsProbedOnce() {
    assertThat(NetworkLoops.probeDue(NETWORK, null, null, NOW)).isTrue();
    assertThat(
            NetworkLoops.probeDue(
                NETWORK, report("b".repeat(64), ProbeResult.Passed, NOW), null, NOW))
        .isTrue();
    assertThat(
            NetworkLoops.probeDue(
                NETWORK, report(SHA, ProbeResult.Passed, NOW.minusSeconds(3600)), null, NOW))
        .isFalse();
  }

  @Test
  void failedProbeIsRetriedEveryCheckInterval() {
    ProbeReport failed = report(SHA, ProbeResult.Failed, NOW.minusSeconds(600));
    Instant attempted = NOW.minusSeconds(59);

    assertThat(NetworkLoops.probeDue(NETWORK, failed, attempted, NOW)).isFalse();
    assertThat(NetworkLoops.probeDue(NETWORK, failed, attempted, NOW.plusSeconds(1))).isTrue();
  }

  @Test
  void nothingIsProbedUnlessTheOperatorAsksForProof() {
    ManagedNetwork unasked =
        new ManagedNetwork(
            NETWORK.conflist(),
            null,
            null,
            NETWORK.plugins(),
            NETWORK.check(),
            NETWORK.cleanup(),
            ManagedNetwork.Proof.NONE);

    assertThat(NetworkLoops.probeDue(unasked, null, null, NOW)).isFalse();
  }

  @Test
  void aRetryWithTheSameOutcomeKeepsTheEarlierReportSoNoStatusIsWritten() {
    ProbeReport first = report(SHA, ProbeResult.Failed, NOW).withMessage("ADD: boom");
    ProbeReport again =
        report(SHA, ProbeResult.Failed, NOW.plusSeconds(60)).withMessage("ADD: boom");
    ProbeReport other = report(SHA, ProbeResult.Passed, NOW.plusSeconds(60));

    assertThat(NetworkLoops.unlessSame(first, again)).isSameAs(first);
    assertThat(NetworkLoops.unlessSame(first, other)).isSameAs(other);
  }
}
