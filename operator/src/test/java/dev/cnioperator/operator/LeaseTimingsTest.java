package dev.cnioperator.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.operator.OperatorSettings.LeaseTimings;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class LeaseTimingsTest {
  private static LeaseTimings seconds(long lease, long renew, long retry) {
    return new LeaseTimings(
        Duration.ofSeconds(lease), Duration.ofSeconds(renew), Duration.ofSeconds(retry));
  }

  /**
   * The longest a dead leader leaves the operator without one, as LeaseTimings' Javadoc and the
   * chart's README table say.
   */
  private static Duration worstFailover(LeaseTimings t) {
    return t.leaseDuration().plus(t.retryPeriod());
  }

  /** The leader's Lease renewals an hour. */
  private static long writesPerHour(LeaseTimings t) {
    return Duration.ofHours(1).toMillis() / t.retryPeriod().toMillis();
  }

  @Test
  void theDefaultsFailOverWithin17SecondsFor1800WritesAnHour() {
    assertThat(worstFailover(LeaseTimings.DEFAULT)).isEqualTo(Duration.ofSeconds(17));
    assertThat(writesPerHour(LeaseTimings.DEFAULT)).isEqualTo(1800);
    assertThat(worstFailover(seconds(60, 40, 10))).isEqualTo(Duration.ofSeconds(70));
    assertThat(writesPerHour(seconds(60, 40, 10))).isEqualTo(360);
  }

  @Test
  void timingsTheLeaderElectorWouldRefuseAreRefusedNamingTheFlag() {
    assertThatThrownBy(() -> seconds(10, 10, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--lease-duration");
    assertThatThrownBy(() -> seconds(15, 2, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--lease-renew-deadline");
    assertThatThrownBy(() -> seconds(15, 10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--lease-retry-period");
  }

  @Test
  void theFlagsDefaultToTheDefaultsAndTakeShortDurations() {
    Main main = new Main();
    new CommandLine(main).parseArgs("--lease-duration=60s", "--lease-retry-period=10s");
    assertThat(main.leaseDuration).isEqualTo(Duration.ofSeconds(60));
    assertThat(main.renewDeadline).isEqualTo(LeaseTimings.DEFAULT.renewDeadline());
    assertThat(main.retryPeriod).isEqualTo(Duration.ofSeconds(10));
  }
}
