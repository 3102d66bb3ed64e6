package dev.cnioperator.agent.cleanup;

import dev.cnioperator.agent.network.Reservation;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What {@link StaleAttachmentFinder} decided for one network in one pass.
 *
 * @param delete cached attachments stale for longer than the grace period: DEL them
 * @param release reservations without a cache entry, stale for longer than the grace period
 * @param marks when each currently stale item was first seen stale (the next pass's input)
 * @param stale how many items are stale now, within the grace period or not
 * @param braked true when the pass would delete more than the allowed share, so deletes nothing
 * @param message a line for the status and the log; empty when there is nothing to say
 */
public record StaleDecision(
    List<CachedRef> delete,
    List<Reservation> release,
    Map<String, Instant> marks,
    int stale,
    boolean braked,
    String message) {

  public int deletions() {
    return delete.size() + release.size();
  }
}
