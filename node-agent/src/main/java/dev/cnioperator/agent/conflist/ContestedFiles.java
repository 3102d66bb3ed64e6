package dev.cnioperator.agent.conflist;

import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Remembers the agent's restores of each of its files, so that it stops fighting a party that takes
 * a file away again after each restore: Cilium with {@code cni.exclusive=true} (its default)
 * renames every other configuration of the directory to {@code *.cilium_bak} on every change it
 * sees, and would otherwise rename the agent's file as often as the agent restores it.
 *
 * <p>After {@link #RESTORES} restores of one file within {@link #WINDOW}, the file is contested: it
 * is not restored again until a pause has passed (first {@link #FIRST_PAUSE}, each later one twice
 * the one before, up to {@link #MAX_PAUSE}). Once a pause has passed, the agent restores the file
 * as long as fewer than {@link #RESTORES} restores are in the window. At one pass a minute that is
 * once after the first pause (two of the window's are left) and {@link #RESTORES} times after every
 * later one (the window is empty by then): 3 restores, 5 min, 1, 10 min, 3, 20 min, 3, 40 min, 3,
 * 60 min, 3, 60 min and so on ({@code ContestedFilesTest}). When a restore stays (no restore needed
 * for a whole {@link #WINDOW}), the history is forgotten and the file is the agent's as before. A
 * file that comes back by itself (the other party renames it back) is found in place and the
 * contest ends at once.
 *
 * <p>In memory only: an agent restart forgets the contest and tries again, {@link #RESTORES} times
 * at most, which bounds what a crash-looping agent can do to the other party's directory.
 */
public final class ContestedFiles {
  static final int RESTORES = 3;
  static final Duration WINDOW = Duration.ofMinutes(10);
  static final Duration FIRST_PAUSE = Duration.ofMinutes(5);
  static final Duration MAX_PAUSE = Duration.ofHours(1);

  /**
   * One file of one directory, or the entries network {@code appended} holds in it (another
   * product's file, which the agent re-appends to after each rewrite).
   */
  public record Key(ConfigDirectory directory, String fileName, String appended) {
    /** The agent's own file. */
    public Key(ConfigDirectory directory, String fileName) {
      this(directory, fileName, null);
    }
  }

  /**
   * Why a file is contested now.
   *
   * @param seen what happened to it after the last restores ("renamed to x.cilium_bak")
   * @param restores how many times the agent restored it since {@code since}, each taken away again
   * @param since the first of those restores
   * @param until when the agent restores it once more
   */
  public record Contest(String seen, int restores, Instant since, Instant until) {}

  private static final class History {
    final Deque<Instant> restores = new ArrayDeque<>();
    Duration pause = Duration.ZERO;
    Instant pausedUntil;
    String seen;
    int restored;
    Instant firstRestore;
  }

  private final Map<Key, History> files = new HashMap<>();

  /**
   * Whether the agent may restore {@code file} at {@code now}; empty when it may (and the restore
   * is counted), the contest when it must not.
   *
   * @param seen what the pass found: the file removed, renamed (to which name), or changed
   */
  public synchronized Optional<Contest> restore(Key file, String seen, Instant now) {
    History h = files.computeIfAbsent(file, k -> new History());
    h.seen = seen;
    drop(h, now);
    if (h.pausedUntil != null && now.isBefore(h.pausedUntil)) {
      return Optional.of(contest(h));
    }
    if (h.restores.size() >= RESTORES) {
      h.pause = h.pause.isZero() ? FIRST_PAUSE : min(h.pause.multipliedBy(2), MAX_PAUSE);
      h.pausedUntil = now.plus(h.pause);
      // The restore after this pause counts as one more in the window.
      h.restores.removeFirst();
      return Optional.of(contest(h));
    }
    h.restores.addLast(now);
    h.restored++;
    h.firstRestore = h.firstRestore == null ? now : h.firstRestore;
    return Optional.empty();
  }

  /** The file was found as the agent wrote it: a contest ends once a whole window went by. */
  public synchronized void found(Key file, Instant now) {
    History h = files.get(file);
    if (h == null) {
      return;
    }
    boolean paused = h.pausedUntil != null && now.isBefore(h.pausedUntil);
    drop(h, now);
    if (paused || h.restores.isEmpty()) {
      // Back while paused: the other party gave it back. Or no restore for a whole window.
      files.remove(file);
    }
  }

  /** The agent no longer owns the file: nothing to remember. */
  public synchronized void forget(Key file) {
    files.remove(file);
  }

  /** Network {@code appended} holds no entries in any file any more: nothing to remember. */
  public synchronized void forgetAppended(String appended) {
    files.keySet().removeIf(k -> appended.equals(k.appended()));
  }

  /** The contest of {@code file} now, if it is contested. */
  public synchronized Optional<Contest> contest(Key file, Instant now) {
    History h = files.get(file);
    return h != null && h.pausedUntil != null && now.isBefore(h.pausedUntil)
        ? Optional.of(contest(h))
        : Optional.empty();
  }

  private static void drop(History h, Instant now) {
    Instant cutoff = now.minus(WINDOW);
    while (!h.restores.isEmpty() && h.restores.peekFirst().isBefore(cutoff)) {
      h.restores.removeFirst();
    }
  }

  private static Contest contest(History h) {
    return new Contest(h.seen, h.restored, h.firstRestore, h.pausedUntil);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
