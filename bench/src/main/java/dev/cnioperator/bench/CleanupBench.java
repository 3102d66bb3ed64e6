package dev.cnioperator.bench;

import dev.cnioperator.agent.AgentProgram;
import dev.cnioperator.agent.cleanup.CleanupHistory;
import dev.cnioperator.agent.cleanup.StaleAttachmentCleaner;
import dev.cnioperator.agent.kube.PodSource;
import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.HostLocalReservations;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.testkit.LocalControlPlane;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Cleanup: N stale host-local reservations (default 500): attachments added for real, then their
 * namespaces deleted and no pod for them on the node, as after a runtime crash. The agent's {@link
 * StaleAttachmentCleaner} (grace period 0, no brake; its DELs on as many workers as the agent's,
 * {@link AgentProgram#PLUGIN_WORKERS}) passes until all are released, against a cnitool {@code del}
 * loop over the same kind of attachments. Both DEL through the real plugins.
 *
 * <p>{@code e2e/bin/bench cleanup [reservations] [runs] [other worker counts, e.g. 2,8]} (defaults:
 * 500, 3, none): each other worker count is a row of its own in the same run.
 */
public final class CleanupBench {
  private static final String NODE = "bench-cleanup-node";

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<Integer> workerCounts = new java.util.ArrayList<>(List.of(AgentProgram.PLUGIN_WORKERS));
    if (args.length > 2) {
      for (String w : args[2].split(",")) {
        workerCounts.add(Integer.parseInt(w.trim()));
      }
    }
    List<Samples> agent = workerCounts.stream().map(w -> new Samples()).toList();
    Samples marks = new Samples();
    Samples cnitool = new Samples();
    try (LocalControlPlane cp = LocalControlPlane.start();
        BridgeAttachments net = new BridgeAttachments("10.220.4.0/22")) {
      Runtime.getRuntime().addShutdownHook(new Thread(net::close));
      for (int i = 0; i < runs; i++) {
        for (int w = 0; w < workerCounts.size(); w++) {
          double[] passes = agentCleanup(cp, net, count, workerCounts.get(w));
          agent.get(w).add(passes[0]);
          if (w == 0) {
            marks.add(passes[1]);
          }
        }
        cnitool.add(cnitoolLoop(net, count));
        System.out.printf(Locale.ROOT, "run %d: agent %s cnitool %s%n", i + 1, agent, cnitool);
      }
    }
    BenchReport report =
        new BenchReport("cleanup", "Cleanup: " + count + " stale host-local reservations");
    BenchReport.Table table =
        report.table("how", "median", "p99", "per reservation", "ratio to cnitool");
    java.util.List<Object[]> rows = new java.util.ArrayList<>();
    for (int w = 0; w < workerCounts.size(); w++) {
      rows.add(
          new Object[] {
            "agent (StaleAttachmentCleaner passes until none left), "
                + workerCounts.get(w)
                + " DEL workers"
                + (w == 0 ? " (the agent's)" : ""),
            agent.get(w)
          });
    }
    rows.add(new Object[] {"cnitool del, one by one (reference)", cnitool});
    for (Object[] r : rows) {
      Samples s = (Samples) r[1];
      table.row(
          r[0],
          BenchReport.ms(s.median()),
          BenchReport.ms(s.p99()),
          String.format(Locale.ROOT, "%.1f ms", s.median() / count),
          BenchReport.ratio(s.median() / cnitool.median()));
    }
    table.end();
    report.note(
        runs
            + " runs each, interleaved; p99 is the largest. Bridge + host-local (reference plugins"
            + " v1.9.0, CNI 1.0.0, so no GC verb); each reservation was made by a real ADD whose"
            + " namespace was then deleted. The agent's time includes its fresh read of the node's"
            + " pods from the API server and the scan of host-local's store and libcni's cache;"
            + " of it, the first pass (read, decide, mark; no DEL) took "
            + BenchReport.ms(marks.median())
            + " (median, the agent's worker count).");
    report.write();
    System.exit(0);
  }

  /** {total millis, millis of the first pass}. */
  private static double[] agentCleanup(
      LocalControlPlane cp, BridgeAttachments net, int count, int workerCount) throws Exception {
    net.add(count);
    net.killSandboxes();
    AgentMetrics metrics = BridgeAttachments.agentMetrics();
    ExecutorService workers = Executors.newFixedThreadPool(workerCount);
    CniRuntime runtime = net.agentRuntime(metrics);
    StaleAttachmentCleaner cleaner =
        new StaleAttachmentCleaner(
            new AttachmentRuntimes(runtime, runtime),
            new HostLocalReservations(
                HostLocalReservations.DEFAULT_DATA_DIR, ResultCache.DEFAULT_DIR),
            new PodSource(cp.client(), NODE, AgentProgram.API_CALL_DEADLINE),
            Path.of("/var/run/netns"),
            Clock.systemUTC(),
            workers,
            // No pod here claims the network (no kubelet prepares claims in this bench).
            network -> java.util.Set.of());
    CleanupHistory history = new CleanupHistory();
    long t0 = System.nanoTime();
    double firstPass = 0;
    int passes = 0;
    while (net.reservations() > 0) {
      if (++passes > 5) {
        throw new IllegalStateException(
            net.reservations() + " reservations left after 5 cleanup passes");
      }
      cleaner.clean(net.managed(), history, metrics.network(net.managed().name()));
      if (passes == 1) {
        firstPass = (System.nanoTime() - t0) / 1e6;
      }
    }
    double millis = (System.nanoTime() - t0) / 1e6;
    workers.shutdown();
    System.out.printf(
        Locale.ROOT,
        "agent, %d workers: %d passes, %.0f ms (first pass %.0f ms)%n",
        workerCount,
        passes,
        millis,
        firstPass);
    requireEmpty(net);
    net.forgetAll();
    return new double[] {millis, firstPass};
  }

  private static double cnitoolLoop(BridgeAttachments net, int count) {
    List<BridgeAttachments.Live> live = net.add(count);
    net.killSandboxes();
    long t0 = System.nanoTime();
    for (BridgeAttachments.Live l : live) {
      net.cnitool("del", l).orThrow("cnitool del " + l.attachment().netns());
    }
    double millis = (System.nanoTime() - t0) / 1e6;
    requireEmpty(net);
    net.forgetAll();
    return millis;
  }

  private static void requireEmpty(BridgeAttachments net) {
    if (net.reservations() != 0 || !net.cache.list(net.network).isEmpty()) {
      throw new IllegalStateException(
          "not everything was released: "
              + net.reservations()
              + " reservations, "
              + net.cache.list(net.network).size()
              + " cache entries");
    }
  }
}
