package dev.cnioperator.agent.observe;

import dev.cnioperator.runtime.health.JvmMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The agent's Prometheus metrics, named {@code cni_agent_*}: the one place that knows their names.
 * The names here are Micrometer's; the Prometheus registry adds the unit ({@code _seconds}) and
 * {@code _total} to counters, and {@code AgentMetricsTest} holds the exported names. A network's
 * series are in {@link NetworkMetrics}, which its network's loop removes when the agent drops the
 * loop.
 */
public final class AgentMetrics implements AutoCloseable {
  static final String NODE_PASSES = "cni_agent_node_passes";
  static final String LAST_NODE_PASS_OK = "cni_agent_node_pass_last_success_timestamp";
  static final String NETWORKS = "cni_agent_networks";
  static final String FILES_RESTORED = "cni_agent_files_restored";
  static final String UNPARSABLE_FILES = "cni_agent_multus_unparsable_files";
  static final String PLUGIN_EXEC = "cni_agent_plugin_exec_duration";
  static final String CHECKS = "cni_agent_checks";
  static final String CHECK_PASSES = "cni_agent_check_passes";
  static final String FAILING = "cni_agent_failing_attachments";
  static final String UNCHECKED = "cni_agent_unchecked_attachments";
  static final String OLDER_CHAIN = "cni_agent_attachments_on_older_chain";
  static final String STALE = "cni_agent_ipam_stale_reservations";
  static final String RECLAIMED = "cni_agent_ipam_reclaimed";
  static final String CLEANUP_PASSES = "cni_agent_ipam_cleanup_passes";

  /** How a node pass ended. */
  public enum NodePass {
    OK,
    API_UNREACHABLE,
    CNINODE_MISSING,
    /** The CniNode's spec has a field this agent does not know: nothing on the node is changed. */
    UNKNOWN_FIELDS,
    ERROR
  }

  /** What kind of file the agent restored after someone changed or removed it. */
  public enum Restored {
    CONFLIST,
    BINARY
  }

  /**
   * Bucket bounds of plugin run latency below the plugin timeout: a VERSION of a Go plugin takes a
   * few milliseconds, an ADD of a bridge some tens to hundreds, and the timeout is the last bucket,
   * past which a run is killed.
   */
  private static final List<Duration> PLUGIN_BUCKETS =
      List.of(
          Duration.ofMillis(5),
          Duration.ofMillis(10),
          Duration.ofMillis(25),
          Duration.ofMillis(50),
          Duration.ofMillis(100),
          Duration.ofMillis(250),
          Duration.ofMillis(500),
          Duration.ofSeconds(1),
          Duration.ofMillis(2500),
          Duration.ofSeconds(5),
          Duration.ofSeconds(10));

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Clock clock;
  private final Duration[] pluginBuckets;
  private final Map<NodePass, Counter> passes = new ConcurrentHashMap<>();
  private final Map<Restored, Counter> restored = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> networks = new ConcurrentHashMap<>();
  private final AtomicLong lastNodePassOkMillis = new AtomicLong();
  private final AtomicInteger unparsableFiles = new AtomicInteger();
  private volatile boolean jvmAndProcess;
  private JvmMeters jvm;

  /**
   * @param pluginTimeout the last bucket of plugin run latency
   * @param clock the time of {@code cni_agent_node_pass_last_success_timestamp_seconds}
   */
  public AgentMetrics(Duration pluginTimeout, Clock clock) {
    this.clock = clock;
    this.pluginBuckets = pluginBuckets(pluginTimeout);
    // Before the first meter: JvmMeters, bound at the first scrape, counts CPU time in seconds.
    registry.config().meterFilter(JvmMeters.BASE_UNITS);
    // Every outcome from the start: an alert on a rate or an increase sees the first one.
    for (NodePass outcome : NodePass.values()) {
      passes.put(
          outcome,
          Counter.builder(NODE_PASSES)
              .description("Node passes (CniNode spec to files to status) by how they ended")
              .tag("outcome", label(outcome))
              .register(registry));
    }
    for (Restored kind : Restored.values()) {
      restored.put(
          kind,
          Counter.builder(FILES_RESTORED)
              .description("Files of the agent restored after someone changed or removed them")
              .tag("kind", label(kind))
              .register(registry));
    }
    Gauge.builder(LAST_NODE_PASS_OK, lastNodePassOkMillis, millis -> millis.get() / 1000.0)
        .description("When a node pass last ended ok, in seconds since the epoch; 0 before one has")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder(UNPARSABLE_FILES, unparsableFiles, AtomicInteger::get)
        .description("Files in Multus's conf dir, not the agent's, that Multus cannot parse")
        .register(registry);
  }

  /**
   * Adds the JVM's and the process's meters ({@link JvmMeters}, as the operator's) at the first
   * scrape: binding them loads the JDK's management classes, which cost the start about half a
   * second on a busy 2-core node on its way to the first conflist. The GC's counters count from
   * then (CPU time, threads started and classes loaded are the process's own totals). The agent
   * program asks for them; tests of its own meters need not.
   */
  public AgentMetrics withJvmAndProcess() {
    jvmAndProcess = true;
    return this;
  }

  private synchronized void bindJvmAndProcess() {
    if (jvmAndProcess && jvm == null) {
      jvm = new JvmMeters(registry);
    }
  }

  /** One node pass ended; an {@code ok} one is also the time of the last success. */
  public void nodePass(NodePass outcome) {
    passes.get(outcome).increment();
    if (outcome == NodePass.OK) {
      lastNodePassOkMillis.set(clock.millis());
    }
  }

  /** Networks of the CniNode in {@code state} (Applied, Failed, Conflict) after the last pass. */
  public void networks(String state, int count) {
    networks
        .computeIfAbsent(
            state,
            s -> {
              AtomicInteger holder = new AtomicInteger();
              Gauge.builder(NETWORKS, holder, AtomicInteger::get)
                  .description("Networks of the CniNode by state after the last node pass")
                  .tag("state", s)
                  .register(registry);
              return holder;
            })
        .set(count);
  }

  /** A managed file someone else changed or removed was restored. */
  public void fileRestored(Restored kind) {
    restored.get(kind).increment();
  }

  /** The files of Multus's directory, not the agent's, that Multus cannot parse, as last seen. */
  public void unparsableFiles(int count) {
    unparsableFiles.set(count);
  }

  /** How long a plugin took for a verb. */
  public void pluginExec(String plugin, String verb, Duration took) {
    Timer.builder(PLUGIN_EXEC)
        .description("Plugin runs (every verb, CHECK and cleanup DELs, probes) by plugin and verb")
        .tag("plugin", plugin)
        .tag("verb", verb)
        .serviceLevelObjectives(pluginBuckets)
        .register(registry)
        .record(took);
  }

  /**
   * The series of {@code network}, empty until its passes record something; closing it removes them
   * from the registry.
   */
  public NetworkMetrics network(String network) {
    return new NetworkMetrics(registry, network);
  }

  /** The Prometheus text exposition. */
  public String scrape() {
    bindJvmAndProcess();
    return registry.scrape();
  }

  /** A label value: the constant's name in lower case ({@code api_unreachable}). */
  static String label(Enum<?> value) {
    return value.name().toLowerCase(Locale.ROOT);
  }

  /** The bucket bounds below {@code timeout}, then the timeout itself. */
  static Duration[] pluginBuckets(Duration timeout) {
    List<Duration> bounds = new ArrayList<>();
    PLUGIN_BUCKETS.stream().filter(b -> b.compareTo(timeout) < 0).forEach(bounds::add);
    bounds.add(timeout);
    return bounds.toArray(Duration[]::new);
  }

  /** Stops listening for GC notifications. */
  @Override
  public synchronized void close() {
    jvmAndProcess = false;
    if (jvm != null) {
      jvm.close();
    }
  }
}
