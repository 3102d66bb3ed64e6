package dev.cnioperator.e2e.bench;

import dev.cnioperator.agent.HostPaths;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Agent footprint: for each set of JVM options, the time from spawning the agent's JVM to its first
 * conflist on disk (a fresh node: binaries installed, then the conflist written) and its resident
 * memory once idle after converging. The reference for start-up is the same JVM printing its
 * version: what any Java agent pays before running a line of its own.
 *
 * <p>{@code e2e/bin/bench footprint [runs] [only option sets whose name contains this]}
 */
public final class FootprintBench {
  private static final String NODE = "footprint-node";
  private static final Duration IDLE = Duration.ofSeconds(8);

  /** BENCH_NMT=1 prints the JVM's native memory breakdown of every idle agent. */
  private static final boolean NMT = System.getenv("BENCH_NMT") != null;

  static final List<String> CHART =
      List.of(
          "-XX:+UseSerialGC",
          "-Xss256k",
          "-XX:MaxRAMPercentage=50",
          "-XX:TieredStopAtLevel=1",
          "-XX:ReservedCodeCacheSize=32m",
          "-XX:MaxMetaspaceSize=80m",
          "-Xshare:auto");

  /** The chart's memory limit, so that percentages of RAM mean what they mean in the pod. */
  static final String POD_LIMIT = "-XX:MaxRAM=192m";

  private record Variant(String name, List<String> options) {}

  private Path jar;

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String only = args.length > 1 ? args[1] : "";
    try (BenchCluster cluster = BenchCluster.start("footprint")) {
      new FootprintBench().run(cluster, runs, only);
    }
    System.exit(0);
  }

  /** {@code only}: run only the option sets whose name contains it. */
  private void run(BenchCluster cluster, int runs, String only) throws Exception {
    BenchNetwork net = new BenchNetwork("footprint-net", "footprint", 0);
    cluster.createNode(NODE, net.group());
    cluster.apply(net.yaml());
    cluster.awaitNodeNetwork(NODE);
    Path root = cluster.workDir().resolve("nodes/" + NODE);
    Path kubeconfig = cluster.agentKubeconfig(NODE, root);
    Path archive = cluster.workDir().resolve("agent-appcds.jsa");
    jar = AgentJvm.copyJar(cluster.workDir());

    List<String> lean =
        List.of(
            "-XX:+UseSerialGC",
            "-Xss256k",
            "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1",
            "-XX:ReservedCodeCacheSize=16m",
            "-Xmx32m",
            "-XX:MinHeapFreeRatio=10",
            "-XX:MaxHeapFreeRatio=20",
            "-XX:MaxMetaspaceSize=80m",
            "-XX:-UsePerfData");
    String useArchive = "-XX:SharedArchiveFile=" + archive;
    List<Variant> variants = new ArrayList<>();
    variants.add(new Variant("JVM defaults (G1, heap from host RAM)", List.of()));
    variants.add(new Variant("serial GC", List.of("-XX:+UseSerialGC")));
    variants.add(
        new Variant(
            "serial GC, small stacks, C1 only",
            List.of("-XX:+UseSerialGC", "-Xss256k", "-XX:TieredStopAtLevel=1")));
    variants.add(new Variant("chart values.yaml today, in a 192Mi pod", with(CHART, POD_LIMIT)));
    variants.add(new Variant("chart today + AppCDS archive", with(CHART, POD_LIMIT, useArchive)));
    variants.add(new Variant("lean: 32m heap that shrinks, 1 compiler thread", lean));
    variants.add(new Variant("lean + AppCDS archive", with(lean, useArchive)));

    // The AppCDS archive comes from a training run of the agent itself, as an image build would
    // make it: start, converge, SIGTERM (the archive is written at exit).
    Files.deleteIfExists(archive);
    measure(cluster, root, kubeconfig, with(lean, "-XX:ArchiveClassesAtExit=" + archive), net);
    if (!Files.exists(archive)) {
      throw new IllegalStateException("the training run wrote no class archive " + archive);
    }

    BenchReport report = new BenchReport("footprint", "Agent footprint (one agent, fresh node)");
    BenchReport.Table table =
        report.table(
            "JVM options",
            "start → first conflist, median",
            "p99",
            "floor (StartFloor), median",
            "ratio",
            "idle RSS median",
            "idle RSS p99",
            "of which anonymous, median",
            "threads",
            "targets met (< 1.5 s, < 80 MiB)?");
    for (Variant v : variants) {
      if (!v.name().contains(only)) {
        continue;
      }
      Samples start = new Samples();
      Samples rss = new Samples();
      Samples anon = new Samples();
      Samples threads = new Samples();
      Samples bare = new Samples();
      for (int i = 0; i < runs; i++) {
        bare.add(measureFloor(root, kubeconfig, v.options(), net));
        double[] m = measure(cluster, root, kubeconfig, v.options(), net);
        start.add(m[0]);
        rss.add(m[1]);
        anon.add(m[2]);
        threads.add(m[3]);
      }
      System.out.printf(Locale.ROOT, "%s: start %s ms, rss %s MiB%n", v.name(), start, rss);
      table.row(
          v.name() + "<br>`" + String.join(" ", v.options()) + "`",
          BenchReport.ms(start.median()),
          BenchReport.ms(start.p99()),
          BenchReport.ms(bare.median()),
          BenchReport.ratio(start.median() / bare.median()),
          mib(rss.median()),
          mib(rss.p99()),
          mib(anon.median()),
          String.format(Locale.ROOT, "%.0f", threads.median()),
          BenchReport.met(start.median() < 1500 && rss.median() < 80));
    }
    table.end();
    report.note(
        runs
            + " runs per row; p99 is the largest run. Each run starts from an empty sandbox host"
            + " root, so the agent copies bridge and host-local from its bundled plugins, runs"
            + " VERSION on both and then writes the conflist; the CniNode already holds the"
            + " network. Idle RSS is VmRSS "
            + IDLE.toSeconds()
            + " s after the conflist appeared (the agent has written its status by then).");
    report.write();
  }

  /** One agent start on a fresh node: {start→conflist ms, idle RSS MiB, anon MiB, threads}. */
  private double[] measure(
      BenchCluster cluster, Path root, Path kubeconfig, List<String> options, BenchNetwork net)
      throws InterruptedException {
    for (String dir : List.of("etc", "opt", "var")) {
      BenchCluster.deleteTree(root.resolve(dir));
    }
    HostPaths paths = HostPaths.under(root, ToolPaths.pluginDir());
    Path conflist = paths.confDir().resolve(net.fileName());
    List<String> jvm = NMT ? with(options, "-XX:NativeMemoryTracking=summary") : options;
    try (AgentJvm agent =
        AgentJvm.start(jar, jvm, NODE, kubeconfig, paths, root.resolve("agent.log"))) {
      double startMillis = awaitFile(agent, conflist, root.resolve("agent.log"));
      Thread.sleep(IDLE.toMillis());
      if (NMT) {
        System.out.println(agent.nativeMemorySummary());
      }
      return new double[] {startMillis, agent.rssMib(), agent.rssAnonMib(), agent.threads()};
    }
  }

  /** The start-up floor with the same JVM options: millis until its conflist is on disk. */
  private double measureFloor(Path root, Path kubeconfig, List<String> options, BenchNetwork net)
      throws InterruptedException {
    Path confDir = root.resolve("floor/net.d");
    BenchCluster.deleteTree(confDir);
    try (AgentJvm floor =
        AgentJvm.startFloor(jar, options, NODE, kubeconfig, confDir, root.resolve("floor.log"))) {
      return awaitFile(floor, confDir.resolve(net.fileName()), root.resolve("floor.log"));
    }
  }

  /** Millis from {@code jvm}'s spawn until {@code file} exists. */
  private static double awaitFile(AgentJvm jvm, Path file, Path log) throws InterruptedException {
    long deadline = jvm.startNanos() + Duration.ofSeconds(60).toNanos();
    while (!Files.exists(file)) {
      if (System.nanoTime() > deadline || (!jvm.isAlive() && !Files.exists(file))) {
        throw new IllegalStateException("no " + file + " within 60 s; see " + log);
      }
      Thread.sleep(1);
    }
    return (System.nanoTime() - jvm.startNanos()) / 1e6;
  }

  private static List<String> with(List<String> base, String... more) {
    List<String> all = new ArrayList<>(base);
    all.addAll(List.of(more));
    return all;
  }

  private static String mib(double v) {
    return String.format(Locale.ROOT, "%.1f MiB", v);
  }
}
