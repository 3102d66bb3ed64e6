package dev.cnioperator.e2e.bench;

import dev.cnioperator.testkit.LocalControlPlane;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Propagation: with N simulated nodes (agents sharing this JVM, each with its own sandbox root,
 * token and client), the time from {@code kubectl apply} of a CniNetwork (a new one, then an edit)
 * to its conflist being on disk on every selected node; against the {@link Floor} measured in the
 * same run, interleaved run by run so both see the same machine.
 *
 * <p>{@code e2e/bin/bench propagation [runs] [N...]} (defaults: 7 runs, N = 10 100)
 */
public final class PropagationBench {
  private static final Duration TIMEOUT = Duration.ofSeconds(180);

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    List<Integer> sizes = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      sizes.add(Integer.parseInt(args[i]));
    }
    if (sizes.isEmpty()) {
      sizes = List.of(10, 100);
    }
    BenchReport report =
        new BenchReport("propagation", "Propagation: kubectl apply to conflists on every node");
    BenchReport.Table table =
        report.table(
            "nodes",
            "change",
            "product median",
            "product p99",
            "floor median",
            "floor p99",
            "ratio (medians)",
            "ratio ≤ 1.5?",
            "100 nodes < 2 s?");
    List<String> notes = new ArrayList<>();
    try (BenchCluster cluster = BenchCluster.start("propagation")) {
      for (int n : sizes) {
        notes.add(measure(cluster, n, runs, table));
      }
    }
    table.end();
    report.note(
        runs
            + " runs per row, product and floor interleaved; p99 is the largest run. Both clocks"
            + " start before kubectl is spawned, so kubectl's own start-up and discovery are in both. The"
            + " product: kubectl apply → operator renders and writes N CniNode specs → each agent"
            + " gets its watch event, reads its CniNode fresh, checks its plugin binaries,"
            + " writes the conflist atomically (fsync, rename) and its status. The floor: kubectl"
            + " apply of a ConfigMap → a watcher server-side-applies N per-node ConfigMaps in"
            + " sequence → N watchers (own client each, field selector) get their event.");
    notes.forEach(report::note);
    report.write();
    System.exit(0);
  }

  private static String measure(BenchCluster cluster, int n, int runs, BenchReport.Table table)
      throws Exception {
    String group = "p" + n;
    long t0 = System.nanoTime();
    try (InProcessAgents agents = InProcessAgents.start(cluster, group, n);
        Floor floor = Floor.start(cluster.controlPlane(), agents.nodes())) {
      System.out.printf(
          Locale.ROOT, "%d agents started in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
      BenchNetwork net = new BenchNetwork("prop" + n, group, 0);
      // Warm-up, not measured: the first network on a fresh node installs its plugin binaries.
      double first = create(cluster, agents, net);
      delete(cluster, agents, net);
      Samples create = new Samples();
      Samples edit = new Samples();
      Samples floorTimes = new Samples();
      int revision = 1;
      for (int i = 0; i < runs; i++) {
        net = net.next();
        create.add(create(cluster, agents, net));
        floorTimes.add(floor.measure(Integer.toString(revision++), net.yaml()));
        net = net.next();
        edit.add(apply(cluster, agents, net));
        floorTimes.add(floor.measure(Integer.toString(revision++), net.yaml()));
        delete(cluster, agents, net);
      }
      System.out.printf(
          Locale.ROOT, "N=%d create %s edit %s floor %s%n", n, create, edit, floorTimes);
      row(table, n, "new CniNetwork", create, floorTimes);
      row(table, n, "edit (new subnet)", edit, floorTimes);
      return String.format(
          Locale.ROOT,
          "N = %d: the very first network on the fresh nodes (binaries installed too, not in"
              + " the table) took %.0f ms.",
          n,
          first);
    }
  }

  private static void row(
      BenchReport.Table table, int n, String change, Samples product, Samples floor) {
    double ratio = product.median() / floor.median();
    table.row(
        n,
        change,
        BenchReport.ms(product.median()),
        BenchReport.ms(product.p99()),
        BenchReport.ms(floor.median()),
        BenchReport.ms(floor.p99()),
        BenchReport.ratio(ratio),
        BenchReport.met(ratio <= 1.5),
        n == 100 ? BenchReport.met(product.median() < 2000) : "");
  }

  private static double create(BenchCluster cluster, InProcessAgents agents, BenchNetwork net)
      throws InterruptedException {
    return apply(cluster, agents, net);
  }

  /** kubectl apply of {@code net}; millis until every node holds this revision's conflist. */
  private static double apply(BenchCluster cluster, InProcessAgents agents, BenchNetwork net)
      throws InterruptedException {
    long t0 = System.nanoTime();
    cluster.apply(net.yaml());
    long done = ConflistWait.until(agents.confDirs(), net.fileName(), net.marker(), TIMEOUT);
    return (done - t0) / 1e6;
  }

  private static void delete(BenchCluster cluster, InProcessAgents agents, BenchNetwork net)
      throws InterruptedException {
    LocalControlPlane cp = cluster.controlPlane();
    cp.kubectl("delete", "cninetwork", net.name(), "--wait=false").orThrow("kubectl delete");
    ConflistWait.until(agents.confDirs(), net.fileName(), null, TIMEOUT);
    // The finalizer goes once the agents report removal; the next create must not race it.
    cp.kubectl("wait", "--for=delete", "cninetwork/" + net.name(), "--timeout=120s")
        .orThrow("kubectl wait --for=delete");
  }
}
