package dev.cnioperator.operator.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.testkit.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LoopLivenessTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");
  private static final LoopLiveness.Limits LIMITS =
      new LoopLiveness.Limits(Duration.ofMinutes(5), Duration.ofMinutes(2));

  private final ManualClock clock = new ManualClock(T0);
  private final FakeLoop loop = new FakeLoop();

  /** The operator as the check sees it, set by each test. */
  private static final class FakeLoop implements LoopLiveness.Loop {
    boolean leading = true;
    RunningReconciles.Running oldest;
    List<String> unhealthy = new ArrayList<>();

    @Override
    public boolean leading() {
      return leading;
    }

    @Override
    public Optional<RunningReconciles.Running> oldestReconcile() {
      return Optional.ofNullable(oldest);
    }

    @Override
    public List<String> unhealthySources() {
      return unhealthy;
    }
  }

  private LoopLiveness withLease() {
    return new LoopLiveness(LIMITS, true, loop, clock);
  }

  @Test
  void aReconcileRunningLongerThanTheBoundIsStuckNamingItAndSinceWhen() {
    LoopLiveness liveness = withLease();
    loop.oldest = new RunningReconciles.Running("cninetwork/dbnet", T0);

    clock.advance(Duration.ofMinutes(5));
    assertThat(liveness.notLive()).as("at the bound").isEmpty();

    clock.advance(Duration.ofSeconds(1));
    assertThat(liveness.notLive())
        .hasValueSatisfying(
            why ->
                assertThat(why)
                    .contains("the reconcile of cninetwork/dbnet has run for 301.0 s")
                    .contains("since 2026-11-26T10:00:00Z")
                    .contains("300 s, --stuck-reconcile-after"));

    loop.oldest = null;
    assertThat(liveness.notLive()).as("once it returns").isEmpty();
  }

  @Test
  void withoutLeaderElectionTheReconcileBoundStillApplies() {
    LoopLiveness liveness = new LoopLiveness(LIMITS, false, loop, clock);
    loop.oldest = new RunningReconciles.Running("node/worker-1", T0);

    clock.advance(Duration.ofMinutes(6));

    assertThat(liveness.notLive()).hasValueSatisfying(w -> assertThat(w).contains("node/worker-1"));
  }

  @Test
  void eventSourcesUnhealthyAtEveryLookForLongerThanTheGraceWhileLeadingAreStuck() {
    LoopLiveness liveness = withLease();
    loop.unhealthy = List.of("cninetwork/NodeInformer");

    assertThat(liveness.notLive()).as("first seen unhealthy").isEmpty();
    clock.advance(Duration.ofMinutes(2));
    assertThat(liveness.notLive()).as("at the grace").isEmpty();
    clock.advance(Duration.ofSeconds(10));

    assertThat(liveness.notLive())
        .hasValueSatisfying(
            why ->
                assertThat(why)
                    .contains("event sources not healthy for 130.0 s")
                    .contains("renews its Lease")
                    .contains("cninetwork/NodeInformer"));
  }

  @Test
  void aHealthyLookStartsTheGraceAgain() {
    LoopLiveness liveness = withLease();
    loop.unhealthy = List.of("node/cninodes");
    liveness.notLive();
    clock.advance(Duration.ofSeconds(90));
    loop.unhealthy = List.of();
    assertThat(liveness.notLive()).isEmpty();

    loop.unhealthy = List.of("node/cninodes");
    clock.advance(Duration.ofSeconds(10));
    liveness.notLive();
    clock.advance(Duration.ofSeconds(90));

    assertThat(liveness.notLive()).as("90 s since it went unhealthy again").isEmpty();
  }

  @Test
  void aStandbyIsLiveWhateverItsInformersAndTheGraceStartsWhenItLeads() {
    LoopLiveness liveness = withLease();
    loop.leading = false;
    loop.unhealthy = List.of("cninetwork/ControllerResourceEventSource");
    liveness.notLive();
    clock.advance(Duration.ofMinutes(10));
    assertThat(liveness.notLive()).as("a standby, its informers down for 10 min").isEmpty();

    loop.leading = true;
    assertThat(liveness.notLive()).as("just took the Lease").isEmpty();
    clock.advance(Duration.ofMinutes(3));
    assertThat(liveness.notLive()).isPresent();
  }

  @Test
  void withoutALeaseUnhealthyInformersNeverRestartTheOperator() {
    // No Lease proves the API server answers: an outage must not restart the operator in a loop.
    LoopLiveness liveness = new LoopLiveness(LIMITS, false, loop, clock);
    loop.unhealthy = List.of("cninetwork/NodeInformer");
    liveness.notLive();

    clock.advance(Duration.ofHours(1));

    assertThat(liveness.notLive()).isEmpty();
  }

  @Test
  void boundsMustBePositive() {
    assertThatThrownBy(() -> new LoopLiveness.Limits(Duration.ZERO, Duration.ofMinutes(2)))
        .hasMessageContaining("--stuck-reconcile-after must be positive");
  }
}
