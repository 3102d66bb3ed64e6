package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

/**
 * When a control plane start must wait for midnight to pass (kube-api-test's wrapping deadline).
 */
class LocalControlPlaneTest {
  private static final Duration WINDOW = Duration.ofSeconds(210);

  @Test
  void aStartWhoseDeadlineWouldWrapPastMidnightWaitsUntilJustAfterIt() {
    // The start that failed in CI: 23:58:50 with a two-minute deadline, 00:00:50.
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 58, 50), WINDOW))
        .isEqualTo(Duration.ofSeconds(71));
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 59, 59, 500_000_000), WINDOW))
        .isEqualTo(Duration.ofMillis(1_500));
  }

  @Test
  void theWindowIsExactlyItsLengthBeforeMidnight() {
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 56, 30), WINDOW))
        .as("exactly the window before midnight: a deadline at midnight itself does not wrap")
        .isZero();
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(23, 56, 30, 1), WINDOW))
        .isEqualTo(Duration.ofSeconds(211).minusNanos(1));
  }

  @Test
  void aStartAtAnyOtherTimeDoesNotWait() {
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.NOON, WINDOW)).isZero();
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.MIDNIGHT, WINDOW)).isZero();
    assertThat(LocalControlPlane.waitBeforeStart(LocalTime.of(0, 0, 1), WINDOW)).isZero();
  }
}
