package dev.cnioperator.agent.plugin;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Refused or failed installs wait before the next try of the same binary (name, source, sha256): 30
 * s, doubling up to 10 min, instead of a download on every pass. A changed spec (another source or
 * sha256) is tried at once. The message names the next attempt's time, which stays the same between
 * attempts, so waiting writes no status.
 */
final class InstallBackoff {
  static final Duration FIRST = Duration.ofSeconds(30);
  static final Duration MAX = Duration.ofMinutes(10);

  private record Failure(String message, int attempts, Instant retryAt) {}

  private final Clock clock;
  private final Map<String, Failure> failures = new ConcurrentHashMap<>();

  InstallBackoff(Clock clock) {
    this.clock = clock;
  }

  /** Why {@code key} is not tried now, while its back-off lasts; empty when it may be tried. */
  Optional<String> waiting(String key) {
    Failure f = failures.get(key);
    if (f == null || !Instant.now(clock).isBefore(f.retryAt())) {
      return Optional.empty();
    }
    return Optional.of(f.message());
  }

  /** Records a failed try; returns the message for the status, naming the next attempt. */
  String failed(String key, String why) {
    Failure before = failures.get(key);
    int attempts = before == null ? 1 : before.attempts() + 1;
    Duration wait = FIRST.multipliedBy(1L << Math.min(attempts - 1, 10));
    if (wait.compareTo(MAX) > 0) {
      wait = MAX;
    }
    Instant retryAt = Instant.now(clock).plus(wait).truncatedTo(ChronoUnit.SECONDS);
    String message = why + " (attempt " + attempts + "; next attempt after " + retryAt + ")";
    failures.put(key, new Failure(message, attempts, retryAt));
    return message;
  }

  void succeeded(String key) {
    failures.remove(key);
  }
}
