package dev.cnioperator.bench;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * What a node pays: idle resident memory and CPU per minute of the agent, beside its floor (the
 * same JVM and client only watching its CniNode) and the Go node daemons users run for the same job
 * ({@link GoNodeDaemons}), all started together for one node against the same control plane.
 *
 * <p>{@code e2e/bin/bench nodepays [runs=3] [seconds=60]}
 */
public final class NodePaysBench {
  private static final String NODE = "nodepays-node";
  private static final String AGENT = "agent (image JVM, the chart's options)";
  private static final String FLOOR = "floor (JVM + fabric8 watching its CniNode)";

  /** From starting the processes until measuring: each has started and gone idle by then. */
  private static final Duration SETTLE = Duration.ofSeconds(20);

  private final Map<String, Samples> rss = new LinkedHashMap<>();
  private final Map<String, Samples> cpu = new LinkedHashMap<>();
  private final Map<String, Samples> ratio = new LinkedHashMap<>();
  private final Map<String, String> missing = new LinkedHashMap<>();

  /**
   * Everything this benchmark started or made, newest first: closed by a shutdown hook when a
   * Ctrl-C or a kill ends the JVM before main has closed it (closing twice is harmless).
   */
  private final Deque<AutoCloseable> open = new ConcurrentLinkedDeque<>();

  private volatile boolean finished;

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    NodePaysBench bench = new NodePaysBench();
    Runtime.getRuntime().addShutdownHook(new Thread(bench::closeLeftovers, "nodepays-cleanup"));
    try (BenchCluster cluster = BenchCluster.start("nodepays")) {
      ImageRoot image = null;
      try {
        BenchNetwork net = new BenchNetwork("nodepays-net", "nodepays", 0);
        cluster.createNode(NODE, net.group(), GoNodeDaemons.POD_CIDR);
        cluster.apply(net.yaml());
        cluster.awaitNodeNetwork(NODE);
        Path root = cluster.workDir().resolve("nodes/" + NODE);
        Path kubeconfig = cluster.agentKubeconfig(NODE, root);
        image =
            bench.track(
                ImageRoot.unpack(
                    BenchReport.outputDir(),
                    List.of(
                        cluster.workDir(),
                        ToolPaths.pluginDir(),
                        FootprintBench.benchClassesDir(),
                        FootprintBench.caDir(kubeconfig))));
        Map<String, String> podEnv = image.serviceAccount(kubeconfig);
        System.out.println("image's JVM: " + image.version());
        try (GoNodeDaemons peers =
            bench.track(GoNodeDaemons.prepare(cluster, NODE, cluster.workDir().resolve("peers")))) {
          for (int run = 0; run < runs; run++) {
            bench.measure(image, podEnv, root, net, peers, seconds);
          }
        }
      } finally {
        if (image != null) {
          image.close(); // before anything deletes the directories mounted in it
        }
        // The agent's revision probe made the node's own bridge (BenchNetwork).
        Commands.run("ip", "link", "del", BenchCluster.bridgeOf(NODE));
        bench.finished = true;
      }
      bench.report(runs, seconds);
    }
    System.exit(0);
  }

  private <T extends AutoCloseable> T track(T resource) {
    open.push(resource);
    return resource;
  }

  private void closeLeftovers() {
    if (finished) {
      return;
    }
    for (AutoCloseable r = open.poll(); r != null; r = open.poll()) {
      try {
        r.close();
      } catch (Exception e) {
        System.err.println("nodepays: could not close " + r + ": " + e);
      }
    }
    Commands.run("ip", "link", "del", BenchCluster.bridgeOf(NODE));
  }

  /** One run: every process started together, left to settle, then sampled for {@code seconds}. */
  private void measure(
      ImageRoot image,
      Map<String, String> podEnv,
      Path root,
      BenchNetwork net,
      GoNodeDaemons peers,
      int seconds)
      throws Exception {
    for (String dir : List.of("etc", "opt", "var", "floor")) {
      BenchCluster.deleteTree(root.resolve(dir));
    }
    HostPaths paths = HostPaths.under(root, ToolPaths.pluginDir());
    Path jar = AgentJvm.copyJar(root);
    List<String> options = new ArrayList<>(FootprintBench.CHART);
    options.add(FootprintBench.POD_LIMIT);
    List<String> java = image.javaCommand();
    List<NodeDaemon> daemons = List.of();
    try (AgentJvm agent =
            track(
                AgentJvm.start(
                    java, jar, options, NODE, null, podEnv, paths, root.resolve("agent.log")));
        AgentJvm floor =
            track(
                AgentJvm.startFloor(
                    java,
                    jar,
                    options,
                    NODE,
                    null,
                    podEnv,
                    root.resolve("floor/net.d"),
                    root.resolve("floor.log")))) {
      daemons = peers.start(root.resolve("peers"));
      daemons.forEach(this::track);
      Thread.sleep(SETTLE.toMillis());
      Path conflist = paths.confDir().resolve(net.fileName());
      if (!agent.isAlive() || !Files.exists(conflist)) {
        throw new IllegalStateException(
            "the agent wrote no " + conflist + " in " + SETTLE + "; see " + root + "/agent.log");
      }
      Map<String, Long> pids = new LinkedHashMap<>();
      pids.put(AGENT, agent.pid());
      pids.put(FLOOR, floor.pid());
      for (NodeDaemon d : daemons) {
        if (d.isAlive()) {
          pids.put(d.name(), d.pid());
        } else {
          missing.put(d.name(), d.whyDead());
        }
      }
      sample(pids, seconds);
    } finally {
      daemons.forEach(NodeDaemon::close);
    }
  }

  /** VmRSS of each process every second and its CPU over the whole window; ratios to the agent. */
  private void sample(Map<String, Long> pids, int seconds) throws InterruptedException {
    Map<String, Samples> resident = new LinkedHashMap<>();
    Map<String, Double> cpu0 = new LinkedHashMap<>();
    pids.forEach((name, pid) -> cpu0.put(name, ProcAccounting.cpuMillis(pid)));
    long t0 = System.nanoTime();
    for (int s = 0; s < seconds; s++) {
      Thread.sleep(1000);
      pids.forEach(
          (name, pid) ->
              resident.computeIfAbsent(name, k -> new Samples()).add(ProcAccounting.rssMib(pid)));
    }
    double minutes = (System.nanoTime() - t0) / 60e9;
    double agentRss = resident.get(AGENT).median();
    StringBuilder line = new StringBuilder("run:");
    pids.forEach(
        (name, pid) -> {
          double mib = resident.get(name).median();
          double cpuPerMinute = (ProcAccounting.cpuMillis(pid) - cpu0.get(name)) / minutes;
          rss.computeIfAbsent(name, k -> new Samples()).add(mib);
          cpu.computeIfAbsent(name, k -> new Samples()).add(cpuPerMinute);
          ratio.computeIfAbsent(name, k -> new Samples()).add(agentRss / mib);
          line.append(
              String.format(
                  Locale.ROOT, " %s %.1f MiB, %.0f ms CPU/min;", name, mib, cpuPerMinute));
        });
    System.out.println(line);
  }

  private void report(int runs, int seconds) {
    BenchReport report = new BenchReport("nodepays", "What a node pays (idle, one node)");
    BenchReport.Table table =
        report.table(
            "process",
            "idle RSS, median",
            "CPU per minute, median",
            "agent's RSS ÷ this",
            "agent's RSS − this");
    double agent = rss.get(AGENT).median();
    rss.forEach(
        (name, r) ->
            table.row(
                name,
                String.format(Locale.ROOT, "%.1f MiB", r.median()),
                String.format(Locale.ROOT, "%.0f ms", cpu.get(name).median()),
                name.equals(AGENT) ? "" : BenchReport.ratio(ratio.get(name).median()),
                name.equals(AGENT)
                    ? ""
                    : String.format(Locale.ROOT, "%+.1f MiB", agent - r.median())));
    missing.forEach((name, why) -> table.row(name, "did not run", "", "", ""));
    table.end();
    double floor = rss.get(FLOOR).median();
    report.note(
        String.format(
            Locale.ROOT,
            "Of the agent's %.1f MiB, the JVM and fabric8 take %.1f MiB (the floor) and the agent"
                + " itself adds %.1f MiB.",
            agent,
            floor,
            agent - floor));
    missing.forEach((name, why) -> report.note("Not measured: " + why));
    report.note(
        runs
            + " runs; in each, every process starts at once for node "
            + NODE
            + ", settles "
            + SETTLE.toSeconds()
            + " s, then VmRSS is read every second for "
            + seconds
            + " s (its median is the run's) and CPU is user + system time over that window."
            + " Figures are medians over runs, ratios taken within each run. A window of 60 s or"
            + " more holds the agent's once-a-minute resync of its node, which the floor does not"
            + " do. The agent and the"
            + " floor run in the agent image's root on its JVM with the chart's JAVA_TOOL_OPTIONS"
            + " and the agent's ServiceAccount, in-cluster. The Go daemons are built from the Go"
            + " module proxy at pinned versions (Multus v4.2.2, whereabouts v0.9.2, flannel"
            + " v0.28.0: v0.28.1 and later need a module the proxy refuses) and run as "
            + GoNodeDaemons.IDENTITY
            + "; Multus and whereabouts each chrooted in a root of its own holding what its"
            + " DaemonSet mounts, flanneld in a network namespace of its own, on "
            + GoNodeDaemons.BENCH_RANGE
            + " addresses.");
    report.write();
  }
}
