package dev.cnioperator.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The curve to large clusters (issue 31): at each size, a fresh cluster with N simulated nodes
 * ({@link InProcessAgents}), a new network's and a one-batch edit's propagation against the
 * custom-resource reporting floor ({@link Floor#startReportingWithCustomResources}) measured in the
 * same run, interleaved; the CPU each process spends per change; the operator's live heap and the
 * API server's resident memory once the changes are done. Between consecutive sizes, the cost of
 * each added node, product against floor, so a cost that grows with the cluster shows as a bend.
 *
 * <p>{@code e2e/bin/bench scale [runs] [N...]} (defaults: 3 runs, N = 1000 2000 5000)
 */
public final class ScaleBench {
  private static final String NEW = "new CniNetwork";
  private static final String EDIT = "edit, one batch";

  /** Issue 31's target at the largest size: propagation within this × the floor. */
  private static final double TARGET = 1.2;

  /** One size's figures, medians per change. */
  private record Size(
      int n,
      Samples create,
      Samples edit,
      Samples floor,
      CpuByPart.Totals productCpu,
      CpuByPart.Totals floorCpu,
      CpuByPart.Totals operatorWork,
      double operatorHeapMiB,
      double apiServerRssMiB,
      double apiServerRssEmptyMiB,
      int operatorRestarts) {}

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    List<Integer> sizes = PropagationBench.sizes(args, List.of(1000, 2000, 5000));
    List<Size> measured = new ArrayList<>();
    String stopped = null;
    for (int n : sizes) {
      try {
        measured.add(measure(n, runs));
      } catch (Exception | OutOfMemoryError e) {
        // The sizes measured so far still make a curve; say where it stopped and why.
        stopped = "N = " + n + " stopped: " + e;
        System.out.println(stopped);
        e.printStackTrace(System.out);
        break;
      }
    }
    report(runs, measured, stopped);
    System.exit(0);
  }

  private static Size measure(int n, int runs) throws Exception {
    String group = "s" + n;
    BenchCluster cluster = BenchCluster.start("scale" + n);
    ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor();
    watchdog.scheduleWithFixedDelay(cluster::restartOperatorIfExited, 2, 2, TimeUnit.SECONDS);
    try {
      long apiServer = CpuByPart.apiServerPid();
      double emptyRss = ProcessMemory.rssMiB(apiServer);
      long t0 = System.nanoTime();
      try (InProcessAgents agents = InProcessAgents.start(cluster, group, n)) {
        System.out.printf(
            Locale.ROOT, "%d agents started in %.1f s%n", n, (System.nanoTime() - t0) / 1e9);
        BenchNetwork net = new BenchNetwork("scale" + n, group, 0);
        PropagationBench.WarmUp warmUp =
            PropagationBench.warmUp(cluster, agents, net.withRollout(PropagationBench.NO_PROBE));
        try (Floor floor =
            Floor.startReportingWithCustomResources(
                cluster.controlPlane(), agents.nodes(), warmUp.template())) {
          Samples create = new Samples();
          Samples edit = new Samples();
          Samples floorTimes = new Samples();
          CpuByPart cpu = CpuByPart.of(cluster.operator().pid());
          CpuByPart.Totals productCpu = new CpuByPart.Totals();
          CpuByPart.Totals floorCpu = new CpuByPart.Totals();
          OperatorWork work = OperatorWork.of(cluster.operator());
          CpuByPart.Totals operatorWork = new CpuByPart.Totals();
          int revision = 1;
          for (int i = 0; i < runs; i++) {
            for (String rollout : List.of(PropagationBench.NO_PROBE, PropagationBench.ONE_BATCH)) {
              net = net.next().withRollout(rollout);
              var mark = cpu.now();
              var done = work.now();
              double t = PropagationBench.apply(cluster, agents, net).total();
              (rollout.equals(PropagationBench.NO_PROBE) ? create : edit).add(t);
              mark = cpu.lap(productCpu, mark);
              operatorWork.add(done, work.now());
              floorTimes.add(floor.measure(Integer.toString(revision++), net.yaml()).total());
              cpu.lap(floorCpu, mark);
            }
            PropagationBench.delete(cluster, agents, net);
          }
          Size size =
              new Size(
                  n,
                  create,
                  edit,
                  floorTimes,
                  productCpu,
                  floorCpu,
                  operatorWork,
                  ProcessMemory.liveHeapMiB(cluster.operator().pid()),
                  ProcessMemory.rssMiB(apiServer),
                  emptyRss,
                  cluster.operatorRestarts());
          System.out.printf(
              Locale.ROOT,
              "N=%d create %s edit %s floor %s; product CPU %s; floor CPU %s; operator work %s%n",
              n,
              create,
              edit,
              floorTimes,
              productCpu.perWindow(),
              floorCpu.perWindow(),
              operatorWork.perWindow());
          return size;
        }
      } finally {
        BenchCluster.deleteBridges(group, n);
      }
    } finally {
      watchdog.shutdownNow();
      cluster.close();
      // Each simulated node holds its own copies of the plugin binaries: gigabytes at these sizes.
      BenchCluster.deleteTree(cluster.workDir());
    }
  }

  private static void report(int runs, List<Size> sizes, String stopped) {
    BenchReport report =
        new BenchReport(
            "scale", "Scale: propagation and its costs against the custom-resource floor");
    BenchReport.Table table =
        report.table(
            "nodes",
            "change",
            "product median",
            "floor median",
            "ratio",
            "operator CPU / change",
            "API server CPU / change (floor's)",
            "operator live heap",
            "API server RSS (per node)");
    for (Size s : sizes) {
      double floor = s.floor().median();
      for (String change : List.of(NEW, EDIT)) {
        Samples product = change.equals(NEW) ? s.create() : s.edit();
        double ratio = product.median() / floor;
        table.row(
            s.n(),
            change,
            BenchReport.ms(product.median()),
            BenchReport.ms(floor),
            BenchReport.ratio(ratio)
                + (s.n() >= 5000 ? " " + BenchReport.met(ratio <= TARGET) : ""),
            BenchReport.ms(s.productCpu().perWindow(CpuByPart.OPERATOR)),
            BenchReport.ms(s.productCpu().perWindow(CpuByPart.API_SERVER))
                + " ("
                + BenchReport.ms(s.floorCpu().perWindow(CpuByPart.API_SERVER))
                + ")",
            String.format(Locale.ROOT, "%.0f MiB", s.operatorHeapMiB()),
            String.format(
                Locale.ROOT,
                "%.0f MiB (%.1f KiB)",
                s.apiServerRssMiB(),
                (s.apiServerRssMiB() - s.apiServerRssEmptyMiB()) * 1024 / s.n()));
      }
    }
    table.end();
    BenchReport.Table bend =
        report.table(
            "nodes",
            "new network: product / floor, ms per 1000 added nodes",
            "edit: product / floor, ms per 1000 added nodes",
            "operator CPU ms per change per 1000 added nodes",
            "API server CPU ms per change per 1000 added nodes: product / floor");
    for (int i = 1; i < sizes.size(); i++) {
      Size a = sizes.get(i - 1);
      Size b = sizes.get(i);
      double k = 1000.0 / (b.n() - a.n());
      bend.row(
          a.n() + " → " + b.n(),
          perAdded(b.create().median() - a.create().median(), k)
              + " / "
              + perAdded(b.floor().median() - a.floor().median(), k),
          perAdded(b.edit().median() - a.edit().median(), k)
              + " / "
              + perAdded(b.floor().median() - a.floor().median(), k),
          perAdded(
              b.productCpu().perWindow(CpuByPart.OPERATOR)
                  - a.productCpu().perWindow(CpuByPart.OPERATOR),
              k),
          perAdded(
                  b.productCpu().perWindow(CpuByPart.API_SERVER)
                      - a.productCpu().perWindow(CpuByPart.API_SERVER),
                  k)
              + " / "
              + perAdded(
                  b.floorCpu().perWindow(CpuByPart.API_SERVER)
                      - a.floorCpu().perWindow(CpuByPart.API_SERVER),
                  k));
    }
    bend.end();
    BenchReport.Table work =
        report.table(
            "nodes",
            "Node reconciles / change (per node)",
            "CniNetwork reconciles / change",
            "CniNode writes / change (per node)",
            "status writes / change",
            "operator CPU per reconcile");
    for (Size s : sizes) {
      CpuByPart.Totals w = s.operatorWork();
      double nodes = w.perWindow(OperatorWork.NODE_RECONCILES);
      double networks = w.perWindow(OperatorWork.NETWORK_RECONCILES);
      double writes = w.perWindow(OperatorWork.CNINODE_WRITES);
      work.row(
          s.n(),
          String.format(Locale.ROOT, "%.0f (%.2f)", nodes, nodes / s.n()),
          String.format(Locale.ROOT, "%.0f", networks),
          String.format(Locale.ROOT, "%.0f (%.2f)", writes, writes / s.n()),
          String.format(Locale.ROOT, "%.0f", w.perWindow(OperatorWork.STATUS_WRITES)),
          String.format(
              Locale.ROOT,
              "%.2f ms",
              s.productCpu().perWindow(CpuByPart.OPERATOR) / (nodes + networks)));
    }
    work.end();
    report.note(
        runs
            + " runs per size, each a new network and a one-batch edit (no probe attachment: every"
            + " node shares this machine's cores), each followed by a run of the custom-resource"
            + " reporting floor (see the propagation benchmark); each size on a fresh control plane."
            + " CPU per change: from kubectl apply until RolledOut (product), until the last"
            + " node's event (floor), from /proc. Operator live heap: after a full collection (jcmd"
            + " GC.run), once the runs are done. API server RSS per node: (VmRSS with N nodes"
            + " − VmRSS before the first node) / N. A cost per added node that grows from one pair"
            + " of sizes to the next, while the floor's stays level, is a cost that grows with the"
            + " cluster's size. Operator work: reconciles started by each controller and writes,"
            + " from the operator's own /metrics over the same windows as its CPU; the CPU per"
            + " reconcile splits a bend into more work and dearer work.");
    for (Size s : sizes) {
      if (s.operatorRestarts() > 0) {
        report.note(
            String.format(
                Locale.ROOT,
                "N = %d: the operator lost its Lease under the load of the nodes' start (every"
                    + " simulated node runs VERSION on its plugins at once on this machine's two"
                    + " cores) and exited %d time(s); the benchmark restarted it as its Deployment"
                    + " would, before the measured runs.",
                s.n(),
                s.operatorRestarts()));
      }
    }
    if (stopped != null) {
      report.note("**" + stopped + "**");
    }
    report.write();
  }

  private static String perAdded(double delta, double perThousand) {
    return String.format(Locale.ROOT, "%.0f", delta * perThousand);
  }
}
