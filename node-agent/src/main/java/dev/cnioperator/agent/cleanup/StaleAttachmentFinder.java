package dev.cnioperator.agent.cleanup;

import dev.cnioperator.agent.network.Reservation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Decides which attachments and reservations of one network are stale and due for release. Pure:
 * fresh observations in, a decision out. A live attachment is never chosen; anything uncertain is
 * left alone.
 */
public final class StaleAttachmentFinder {

  /**
   * What one pass saw of a network, all of it read fresh.
   *
   * @param cached the network's cached attachments
   * @param reservations host-local reservations of the network
   * @param pods a fresh read of this node's pods
   * @param netnsExists whether a network namespace path still exists
   * @param marks when items were first seen stale, from the previous pass
   * @param releasedRecently items of this network released within the brake's window, so a node
   *     losing its pods one by one trips the brake as one losing them at once does
   * @param now the pass's time
   */
  public record Observation(
      List<CachedRef> cached,
      List<Reservation> reservations,
      LivePods pods,
      Predicate<String> netnsExists,
      Map<String, Instant> marks,
      int releasedRecently,
      Instant now) {}

  /**
   * The network's cleanup settings that bear on the decision.
   *
   * @param grace how long an item must stay stale before it is released
   * @param maxDeleteFraction the brake: the largest share of the network's items that may be stale,
   *     counting those released recently, before cleanup stops and reports
   */
  public record Limits(Duration grace, double maxDeleteFraction) {}

  /** Which of {@code seen}'s items are stale, which are due, and whether the brake holds them. */
  public StaleDecision find(Observation seen, Limits limits) {
    List<CachedRef> cached = seen.cached();
    LivePods pods = seen.pods();
    Map<String, Instant> marks = seen.marks();
    Instant now = seen.now();
    Duration grace = limits.grace();
    Map<String, Instant> nextMarks = new HashMap<>();
    List<CachedRef> delete = new ArrayList<>();
    List<Reservation> release = new ArrayList<>();
    int stale = 0;
    Set<String> cachedContainers = new HashSet<>();
    cached.forEach(c -> cachedContainers.add(c.containerId()));
    for (CachedRef c : cached) {
      if (whyStale(c, pods, seen.netnsExists()).isPresent()) {
        stale++;
        if (due(c.key(), marks, nextMarks, now, grace)) {
          delete.add(c);
        }
      }
    }
    int orphans = 0;
    for (Reservation r : seen.reservations()) {
      if (cachedContainers.contains(r.containerId())) {
        continue;
      }
      orphans++;
      if (!pods.ips().contains(r.ip()) && !pods.hasSandbox(r.containerId())) {
        stale++;
        if (due(r.key(), marks, nextMarks, now, grace)) {
          release.add(r);
        }
      }
    }
    // The brake weighs everything stale now (due or still in its grace period) plus what was
    // released recently, against all the network's items then: a pass never releases part of a
    // mass disappearance, and a slow one adds up.
    int total = cached.size() + orphans + seen.releasedRecently();
    int gone = stale + seen.releasedRecently();
    if (total > 0 && gone > limits.maxDeleteFraction() * total) {
      String message =
          String.format(
              "brake: %d of %d attachments are stale or recently released, more than the allowed"
                  + " %.0f%%; nothing released",
              gone, total, limits.maxDeleteFraction() * 100);
      return new StaleDecision(List.of(), List.of(), nextMarks, stale, true, message);
    }
    return new StaleDecision(delete, release, nextMarks, stale, false, "");
  }

  /** Why a cached attachment is stale, or empty when it is (or may be) live. */
  static Optional<String> whyStale(CachedRef c, LivePods pods, Predicate<String> netnsExists) {
    if (pods.fromRuntime()) {
      if (!pods.hasSandbox(c.containerId())) {
        return Optional.of("the runtime no longer lists sandbox " + c.containerId());
      }
    } else if (c.namesPod()) {
      if (!pods.has(c.podNamespace(), c.podName())) {
        return Optional.of("pod " + c.podNamespace() + "/" + c.podName() + " is gone");
      }
      String uid = pods.uid(c.podNamespace(), c.podName());
      if (c.podUid() != null && uid != null && !c.podUid().equals(uid)) {
        return Optional.of("pod " + c.podNamespace() + "/" + c.podName() + " was replaced");
      }
    }
    if (c.netns() != null && !c.netns().isEmpty() && !netnsExists.test(c.netns())) {
      return Optional.of("network namespace " + c.netns() + " is gone");
    }
    return Optional.empty();
  }

  /** Keeps the first time an item was seen stale; true once that is longer ago than the grace. */
  private static boolean due(
      String key,
      Map<String, Instant> marks,
      Map<String, Instant> nextMarks,
      Instant now,
      Duration grace) {
    Instant first = marks.getOrDefault(key, now);
    nextMarks.put(key, first);
    return !now.isBefore(first.plus(grace)) && marks.containsKey(key);
  }
}
