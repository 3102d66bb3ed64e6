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

  @Test
  void theDefaultsFailOverWithin17SecondsFor1800WritesAnHour() {
    assertThat(LeaseTimings.DEFAULT.worstFailover()).isEqualTo(Duration.ofSeconds(17));
    assertThat(LeaseTimings.DEFAULT.writesPerHour()).isEqualTo(1800);
    assertThat(seconds(60, 40, 10).worstFailover()).isEqualTo(Duration.ofSeconds(70));
    assertThat(seconds(60, 40, 10).writesPerHour()).isEqualTo(360);
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
