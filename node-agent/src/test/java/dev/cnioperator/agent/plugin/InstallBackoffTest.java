package dev.cnioperator.agent.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class InstallBackoffTest {
  private Instant now = Instant.parse("2026-01-01T00:00:00Z");
  private final Clock clock =
      new Clock() {
        @Override
        public ZoneOffset getZone() {
          return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
          return this;
        }

        @Override
        public Instant instant() {
          return now;
        }
      };

  @Test
  void aRefusedBinaryIsNotTriedAgainUntilItsBackoffEndsAndTheWaitDoublesUpToTenMinutes() {
    InstallBackoff b = new InstallBackoff(clock);
    assertThat(b.waiting("tuning u s")).isEmpty();

    String first = b.failed("tuning u s", "sha256 mismatch");
    assertThat(first)
        .isEqualTo("sha256 mismatch (attempt 1; next attempt after 2026-01-01T00:00:30Z)");
    now = now.plusSeconds(29);
    assertThat(b.waiting("tuning u s")).contains(first);
    assertThat(b.waiting("tuning u other-sha")).as("a changed spec is tried at once").isEmpty();
    now = now.plusSeconds(1);
    assertThat(b.waiting("tuning u s")).isEmpty();

    assertThat(b.failed("tuning u s", "sha256 mismatch"))
        .contains("attempt 2")
        .contains("00:01:30Z");
    for (int i = 0; i < 12; i++) {
      b.failed("tuning u s", "x");
    }
    assertThat(b.failed("tuning u s", "x"))
        .contains("next attempt after " + now.plus(InstallBackoff.MAX));

    b.succeeded("tuning u s");
    assertThat(b.waiting("tuning u s")).isEmpty();
  }
}
