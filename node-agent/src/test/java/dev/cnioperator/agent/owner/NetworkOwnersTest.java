package dev.cnioperator.agent.owner;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.network.ManagedNetwork.CheckSettings;
import dev.cnioperator.agent.network.ManagedNetwork.CleanupSettings;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.agent.probe.RevisionProbe;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
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
    assertThat(NetworkOwners.probeDue(NETWORK, null, null, NOW)).isTrue();
    assertThat(
            NetworkOwners.probeDue(
                NETWORK, report("b".repeat(64), ProbeResult.Passed, NOW), null, NOW))
        .isTrue();
    assertThat(
            NetworkOwners.probeDue(
                NETWORK, report(SHA, ProbeResult.Passed, NOW.minusSeconds(3600)), null, NOW))
        .isFalse();
  }

  @Test
  void failedProbeIsRetriedEveryCheckInterval() {
    ProbeReport failed = report(SHA, ProbeResult.Failed, NOW.minusSeconds(600));
    Instant attempted = NOW.minusSeconds(59);

    assertThat(NetworkOwners.probeDue(NETWORK, failed, attempted, NOW)).isFalse();
    assertThat(NetworkOwners.probeDue(NETWORK, failed, attempted, NOW.plusSeconds(1))).isTrue();
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

    assertThat(NetworkOwners.probeDue(unasked, null, null, NOW)).isFalse();
  }

  @Test
  void aRetryWithTheSameOutcomeKeepsTheEarlierReportSoNoStatusIsWritten() {
    ProbeReport first = report(SHA, ProbeResult.Failed, NOW).withMessage("ADD: boom");
    ProbeReport again =
        report(SHA, ProbeResult.Failed, NOW.plusSeconds(60)).withMessage("ADD: boom");
    ProbeReport other = report(SHA, ProbeResult.Passed, NOW.plusSeconds(60));

    assertThat(NetworkOwners.unlessSame(first, again)).isSameAs(first);
    assertThat(NetworkOwners.unlessSame(first, other)).isSameAs(other);
  }

  /**
   * A probe that has put its report on the board but whose pass has not ended is the state in which
   * a node pass used to write the status at once and the pass's end wrote it again: nothing is due
   * any more, yet the pass still asks for a write when it ends, so the node pass must leave its
   * write to it.
   */
  @Test
  void aNetworkPassUnderWayHoldsTheNodePassStatusWriteEvenWhenNothingIsDue() throws Exception {
    String conflist =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"plugins\":[{\"type\":\"bridge\"}]}";
    ManagedNetwork network =
        new ManagedNetwork(
            NETWORK.conflist(),
            NetworkConfigList.parse(conflist.getBytes(StandardCharsets.UTF_8)),
            null,
            NETWORK.plugins(),
            new CheckSettings(false, Duration.ofSeconds(60)),
            NETWORK.cleanup(),
            ManagedNetwork.Proof.ATTACHMENT);
    HealthBoard board = new HealthBoard();
    CountDownLatch reported = new CountDownLatch(1);
    CountDownLatch endPass = new CountDownLatch(1);
    Semaphore statusWrites = new Semaphore(0);
    RevisionProbe probe =
        new RevisionProbe(null, null, null, null, null, null) {
          @Override
          public ProbeReport prove(ManagedNetwork n) throws InterruptedException {
            ProbeReport passed = report(SHA, ProbeResult.Passed, NOW);
            board.update(n.name(), h -> h.withProbe(passed));
            reported.countDown();
            endPass.await();
            return passed;
          }
        };
    try (NetworkOwners loops =
        new NetworkOwners(
            () -> List.of(network),
            null,
            null,
            probe,
            null,
            board,
            statusWrites::release,
            Clock.fixed(NOW, ZoneOffset.UTC))) {
      try {
        assertThat(loops.startDue(List.of(network))).as("the new content's proof is due").isTrue();
        assertThat(reported.await(10, TimeUnit.SECONDS)).isTrue();

        assertThat(loops.startDue(List.of(network)))
            .as("nothing is due, but the pass has not ended")
            .isTrue();
      } finally {
        endPass.countDown();
      }
      assertThat(statusWrites.tryAcquire(10, TimeUnit.SECONDS))
          .as("the pass's end asks for the status write")
          .isTrue();
      assertThat(loops.startDue(List.of(network))).as("proven, and no pass under way").isFalse();
    }
  }
}
