package dev.cnioperator.agent.observe;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Whether the agent is stuck: why {@code /healthz} answers 503, or empty. The kubelet restarts a
 * container whose liveness fails, so this says "stuck" only where a restart puts things right:
 * where one of the agent's loops stopped coming round. The agent is stuck when any of these holds:
 *
 * <ol>
 *   <li><b>The node loop</b>: its thread has been on one reconcile or status write for longer than
 *       {@link #NODE_TASK_LIMIT}, or has ended none for the resync period plus {@link
 *       #NODE_IDLE_SLACK} (its schedule stopped). A reconcile waits on at most two API requests
 *       (the client gives up on each within 45 s), a VERSION of each new plugin binary (each at
 *       most the plugin timeout) and a download of each CniPlugin binary to fetch (2 min to the
 *       response): 10 minutes covers a dozen binaries whose VERSION hangs.
 *   <li><b>The networks' timer</b>: it has not ticked for {@link #TICKER_LIMIT}. It ticks every
 *       second and only adds the networks to their work queue, so it never waits on a plugin or a
 *       request.
 *   <li><b>A plugin run</b> has run for longer than its timeout plus {@link #PLUGIN_KILL_GRACE}:
 *       the executor kills a plugin and its children at the timeout and waits at most 10 s more for
 *       its output, so a run past that was not stopped by the kill.
 *   <li><b>The network runs</b>: one is under way and nothing has moved for the plugin timeout plus
 *       {@link #NETWORK_QUIET_SLACK}, where moving is a network run beginning or ending or a plugin
 *       run ending anywhere on the node. A run's total time legitimately grows with its attachments
 *       (each CHECK or DEL runs the chain, {@code PLUGIN_WORKERS} at a time, on workers shared with
 *       the other networks' runs) and it may wait for another network's probe (one at a time per
 *       node), so no bound on the total holds on a big node; but while the work goes on a plugin
 *       run ends at least once per plugin timeout, and a run's steps that run no plugin (reading
 *       the cache, host-local's stores, the source of truth over the API or CRI, each bounded by
 *       its client's timeout) take less than the slack.
 * </ol>
 *
 * <p>What never makes the agent stuck: an API server that cannot be reached or answers slowly (each
 * request is bounded, a reconcile that cannot read its CniNode ends as {@code api_unreachable}, a
 * status write is retried later); a missing CniNode; a container runtime that does not answer (CRI
 * calls have deadlines; the status says {@code RuntimeUnreachable}); plugins that fail or time out
 * (they are killed, and the status and metrics say so); failing attachments, a braked or skipped
 * cleanup, conflicts, unparsable files; not being ready. A restart fixes none of these, and in an
 * API server outage it would crash-loop the agent of every node at once, each restart costing the
 * start-up reads and the cleanup's grace periods, which start over.
 */
public final class AgentLiveness implements Supplier<Optional<String>> {
  static final Duration NODE_TASK_LIMIT = Duration.ofMinutes(10);
  static final Duration NODE_IDLE_SLACK = Duration.ofMinutes(2);
  static final Duration TICKER_LIMIT = Duration.ofSeconds(30);
  static final Duration PLUGIN_KILL_GRACE = Duration.ofSeconds(30);
  static final Duration NETWORK_QUIET_SLACK = Duration.ofSeconds(90);

  private final Duration resync;
  private final Duration networkQuiet;
  private final LongSupplier nanoTime;

  /**
   * When the node loop's reconcile or status write under way began; {@link Long#MIN_VALUE} while
   * none is.
   */
  private volatile long nodeTaskSince = Long.MIN_VALUE;

  private volatile long nodeMoved;
  private volatile long ticked;
  private final AtomicInteger networkPasses = new AtomicInteger();
  private final AtomicLong networkMoved;
  private final AtomicLong runIds = new AtomicLong();
  private final Map<Long, PluginRun> runs = new ConcurrentHashMap<>();

  private record PluginRun(String plugin, String verb, long since, Duration limit) {}

  /**
   * @param resync the node loop's resync period
   * @param pluginTimeout the plugin timeout, which bounds the network runs' quiet
   * @param nanoTime {@link System#nanoTime} but in tests
   */
  public AgentLiveness(Duration resync, Duration pluginTimeout, LongSupplier nanoTime) {
    this.resync = resync;
    this.networkQuiet = pluginTimeout.plus(NETWORK_QUIET_SLACK);
    this.nanoTime = nanoTime;
    long now = nanoTime.getAsLong();
    this.nodeMoved = now;
    this.ticked = now;
    this.networkMoved = new AtomicLong(now);
  }

  /** The node loop began a reconcile or a status write. */
  public void nodeTaskBegan() {
    nodeTaskSince = nanoTime.getAsLong();
  }

  public void nodeTaskEnded() {
    nodeTaskSince = Long.MIN_VALUE;
    nodeMoved = nanoTime.getAsLong();
  }

  public void ticked() {
    ticked = nanoTime.getAsLong();
  }

  public void networkRunBegan() {
    networkPasses.incrementAndGet();
    networkMoved();
  }

  public void networkRunEnded() {
    networkPasses.decrementAndGet();
    networkMoved();
  }

  /** A plugin run began; the id is for {@link #pluginRunEnded}. */
  public long pluginRunBegan(String plugin, String verb, Duration timeout) {
    long id = runIds.incrementAndGet();
    runs.put(
        id, new PluginRun(plugin, verb, nanoTime.getAsLong(), timeout.plus(PLUGIN_KILL_GRACE)));
    return id;
  }

  public void pluginRunEnded(long id) {
    runs.remove(id);
    networkMoved();
  }

  private void networkMoved() {
    long now = nanoTime.getAsLong();
    networkMoved.accumulateAndGet(now, Math::max);
  }

  /** Why the agent is stuck, every reason that holds; empty while it is live. */
  @Override
  public Optional<String> get() {
    long now = nanoTime.getAsLong();
    List<String> why = new ArrayList<>();
    long taskSince = nodeTaskSince;
    if (taskSince != Long.MIN_VALUE) {
      if (over(now, taskSince, NODE_TASK_LIMIT)) {
        why.add(
            "the node loop has been on one reconcile or status write for "
                + since(now, taskSince)
                + past(NODE_TASK_LIMIT));
      }
    } else if (over(now, nodeMoved, resync.plus(NODE_IDLE_SLACK))) {
      why.add(
          "the node loop has ended no reconcile or status write for "
              + since(now, nodeMoved)
              + past(resync.plus(NODE_IDLE_SLACK))
              + " (resync "
              + seconds(resync)
              + ")");
    }
    if (over(now, ticked, TICKER_LIMIT)) {
      why.add("the networks' timer has not ticked for " + since(now, ticked) + past(TICKER_LIMIT));
    }
    for (PluginRun run : runs.values()) {
      if (over(now, run.since(), run.limit())) {
        why.add(
            "plugin "
                + run.plugin()
                + " "
                + run.verb()
                + " has run for "
                + since(now, run.since())
                + past(run.limit())
                + ": the kill at its timeout did not stop it");
      }
    }
    long moved = networkMoved.get();
    if (networkPasses.get() > 0 && over(now, moved, networkQuiet)) {
      why.add(
          "network runs are under way but none began or ended and no plugin run ended for "
              + since(now, moved)
              + past(networkQuiet));
    }
    return why.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", why));
  }

  private static boolean over(long now, long since, Duration limit) {
    return now - since > limit.toNanos();
  }

  private static String since(long now, long since) {
    return seconds(Duration.ofNanos(now - since));
  }

  private static String past(Duration limit) {
    return " (limit " + seconds(limit) + ")";
  }

  private static String seconds(Duration d) {
    return d.toSeconds() + "s";
  }
}
