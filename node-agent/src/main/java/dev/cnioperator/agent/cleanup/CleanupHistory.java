package dev.cnioperator.agent.cleanup;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * What the cleanup remembers of one network from pass to pass: when each item was first seen stale
 * (the grace period counts from then), the releases within the brake's window, and the total
 * released. Belongs to the network's owner and goes with it: a network created again under the same
 * name starts with no marks, no recent releases and nothing reclaimed.
 */
public final class CleanupHistory {
  /** Releases this recent count toward the brake. */
  static final Duration BRAKE_WINDOW = Duration.ofMinutes(10);

  private Map<String, Instant> marks = Map.of();
  private final Deque<Instant> releases = new ArrayDeque<>();
  private int reclaimed;

  synchronized Map<String, Instant> marks() {
    return marks;
  }

  /** The marks of the pass just decided; a released item's mark goes with it. */
  synchronized void marks(Map<String, Instant> next) {
    marks = new HashMap<>(next);
  }

  synchronized void unmark(String key) {
    marks.remove(key);
  }

  /** Releases within the brake's window before {@code now}. */
  synchronized int recentReleases(Instant now) {
    Instant cutoff = now.minus(BRAKE_WINDOW);
    while (!releases.isEmpty() && releases.peekFirst().isBefore(cutoff)) {
      releases.removeFirst();
    }
    return releases.size();
  }

  /**
   * Counts {@code count} releases made at {@code now}; returns the total since the network came.
   */
  synchronized int released(int count, Instant now) {
    for (int i = 0; i < count; i++) {
      releases.addLast(now);
    }
    reclaimed += count;
    return reclaimed;
  }
}
