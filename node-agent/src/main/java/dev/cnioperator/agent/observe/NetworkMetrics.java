package dev.cnioperator.agent.observe;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One network's series ({@code network} label), held by the network's owner: registered by its
 * first CHECK or cleanup pass, removed when the agent stops owning the network (it left the spec,
 * or its uid changed). A deleted network's last values are then no longer exported, and a network
 * created again under the same name starts series of its own. A pass still under way on a network
 * the agent no longer owns records nothing.
 */
public final class NetworkMetrics implements AutoCloseable {
  /** How a cleanup pass ended. */
  public enum CleanupOutcome {
    /** Decided and carried out (or only reported, with dryRun). */
    COMPLETED,
    /** Stopped by the brake: it would have released too large a share. */
    BRAKED,
    /** Not run: no source of truth, or the netns directory cannot be read. */
    SKIPPED
  }

  private final MeterRegistry registry;
  private final String network;
  private final List<Meter> registered = new ArrayList<>();
  private final AtomicInteger failing = new AtomicInteger();
  private final AtomicInteger unchecked = new AtomicInteger();
  private final AtomicInteger stale = new AtomicInteger();
  private final AtomicInteger olderChain = new AtomicInteger();
  private Counter healthyChecks;
  private Counter failingChecks;
  private Counter uncheckedChecks;
  private Counter checkPasses;
  private Map<CleanupOutcome, Counter> cleanupPasses;
  private Counter reclaimed;
  private boolean staleRegistered;
  private boolean closed;

  NetworkMetrics(MeterRegistry registry, String network) {
    this.registry = registry;
    this.network = network;
  }

  /**
   * One CHECK pass over the network ended: the attachments it found healthy, failing and unchecked
   * (their netns unknown, so no CHECK ran). That the CHECK loop is alive shows here, not in the
   * CniNode status, which changes only with a result.
   */
  public synchronized void checkPass(int healthy, int failing, int unchecked) {
    checkPass(healthy, failing, unchecked, 0);
  }

  /**
   * One CHECK pass, with the attachments it found on an older chain than the network's file holds
   * (an older revision, or without a plugin chained in since).
   */
  public synchronized void checkPass(int healthy, int failing, int unchecked, int olderChain) {
    if (closed) {
      return;
    }
    if (checkPasses == null) {
      healthyChecks = checks("healthy");
      failingChecks = checks("failing");
      uncheckedChecks = checks("unchecked");
      checkPasses =
          keep(
              Counter.builder(AgentMetrics.CHECK_PASSES)
                  .description("CHECK passes over the network's attachments")
                  .tag("network", network)
                  .register(registry));
      gauge(AgentMetrics.FAILING, this.failing, "Attachments found failing by the last CHECK pass");
      gauge(
          AgentMetrics.UNCHECKED,
          this.unchecked,
          "Attachments the last CHECK pass could not check (their netns unknown)");
      gauge(
          AgentMetrics.OLDER_CHAIN,
          this.olderChain,
          "Attachments added with an older chain than the network's file holds now");
    }
    healthyChecks.increment(healthy);
    failingChecks.increment(failing);
    uncheckedChecks.increment(unchecked);
    checkPasses.increment();
    this.failing.set(failing);
    this.unchecked.set(unchecked);
    this.olderChain.set(olderChain);
  }

  /**
   * One cleanup pass over the network ended.
   *
   * @param staleLeft stale reservations the pass left (the status's {@code ipam.stale}); ignored
   *     when it was skipped, which counted nothing
   * @param released reservations it released
   */
  public synchronized void cleanupPass(CleanupOutcome outcome, int staleLeft, int released) {
    if (closed) {
      return;
    }
    if (cleanupPasses == null) {
      cleanupPasses = new EnumMap<>(CleanupOutcome.class);
      for (CleanupOutcome o : CleanupOutcome.values()) {
        cleanupPasses.put(
            o,
            keep(
                Counter.builder(AgentMetrics.CLEANUP_PASSES)
                    .description("Cleanup passes over the network by how they ended")
                    .tag("network", network)
                    .tag("outcome", AgentMetrics.label(o))
                    .register(registry)));
      }
      reclaimed =
          keep(
              Counter.builder(AgentMetrics.RECLAIMED)
                  .description("Stale IPAM reservations released by DEL")
                  .tag("network", network)
                  .register(registry));
    }
    cleanupPasses.get(outcome).increment();
    reclaimed.increment(released);
    if (outcome != CleanupOutcome.SKIPPED) {
      if (!staleRegistered) {
        staleRegistered = true;
        gauge(AgentMetrics.STALE, stale, "Stale reservations the last cleanup pass left");
      }
      stale.set(staleLeft);
    }
  }

  /** Removes every series of the network; what a pass still under way records is dropped. */
  @Override
  public synchronized void close() {
    closed = true;
    registered.forEach(registry::remove);
    registered.clear();
  }

  private Counter checks(String result) {
    return keep(
        Counter.builder(AgentMetrics.CHECKS)
            .description("CHECKs of the network's attachments by result")
            .tag("network", network)
            .tag("result", result)
            .register(registry));
  }

  private void gauge(String name, AtomicInteger value, String description) {
    keep(
        Gauge.builder(name, value, AtomicInteger::get)
            .description(description)
            .tag("network", network)
            .strongReference(true)
            .register(registry));
  }

  private <M extends Meter> M keep(M meter) {
    registered.add(meter);
    return meter;
  }
}
