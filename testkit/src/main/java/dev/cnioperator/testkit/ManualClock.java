package dev.cnioperator.testkit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that moves only when the test says so. */
public final class ManualClock extends Clock {
  private Instant now;

  public ManualClock(Instant start) {
    now = start;
  }

  public void advance(Duration d) {
    now = now.plus(d);
  }

  /** Moves the clock to {@code instant}. */
  public void set(Instant instant) {
    now = instant;
  }

  @Override
  public Instant instant() {
    return now;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
