package dev.cnioperator.bench;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

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

  /**
   * BENCH_NMT=1 prints the JVM's native memory breakdown of every idle agent (the image's JVM
   * prints it into agent.log as it exits).
   */
  private static final boolean NMT = System.getenv("BENCH_NMT") != null;

  /**
   * BENCH_CLASS_LOG=1 logs the classes every agent loads, each with the JVM's uptime, to
   * classes.log beside agent.log, whose lines then start with milliseconds since the JVM started:
   * together, a timeline of the start-up.
   */
  private static final boolean CLASS_LOG = System.getenv("BENCH_CLASS_LOG") != null;

  /** The chart's {@code agent.javaToolOptions}, read from values.yaml so the two cannot drift. */
  static final List<String> CHART = chartAgentOptions();

  /** The chart's options that Java 17 refuses (compact headers, native heap trim: Java 24+). */
  private static final List<String> JAVA25_ONLY =
      List.of("-XX:+UseCompactObjectHeaders", "-XX:TrimNativeHeapInterval=");

  /** The chart's options without those Java 17 refuses, for the rows on Java 17. */
  static List<String> chartFor17() {
    return CHART.stream().filter(o -> JAVA25_ONLY.stream().noneMatch(o::startsWith)).toList();
  }

  /** The chart's memory limit, so that percentages of RAM mean what they mean in the pod. */
  static final String POD_LIMIT = "-XX:MaxRAM=192m";

  /** Temurin 25 beside Debian's 17 on the benchmark machine; BENCH_JAVA25 overrides. */
  private static final Path JAVA25 =
      Path.of(
          Objects.requireNonNullElse(
              System.getenv("BENCH_JAVA25"), "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));

  /**
   * One row: a JVM, its options, and the class archive it maps ({@code null}: none), made by a
   * training run of the same jar with {@code training} options before any row is measured.
   */
  private record Variant(
      String name,
      List<String> java,
      List<String> options,
      Path archive,
      List<String> training,
      Path jar) {
    Variant(
        String name, List<String> java, List<String> options, Path archive, List<String> training) {
      this(name, java, options, archive, training, null);
    }

    /** The options of a measured run: {@code options} mapping the archive. */
    List<String> run() {
      if (archive == null) {
        return options;
      }
      boolean aot = archive.toString().endsWith(".aot");
      return with(options, (aot ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=") + archive);
    }
  }

  /** The rows run with the image's own JVM, in {@link ImageRoot}. */
  private static final List<String> IMAGE_ROWS =
      List.of(
          "image 25, the chart's Java 17 options",
          "image 25, the chart's",
          "image 25, the chart's + AOT cache");

  private Path jar;
  private ImageRoot images;

  /** A pod's environment for the rows in the image's root, which configure in-cluster. */
  private Map<String, String> podEnv = Map.of();

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    String only = args.length > 1 ? args[1] : "";
    FootprintBench bench = new FootprintBench();
    try (BenchCluster cluster = BenchCluster.start("footprint")) {
      try {
        bench.run(cluster, runs, only);
      } finally {
        if (bench.images != null) {
          bench.images.close(); // before anything deletes the directories mounted in it
        }
        // The agent's revision probe made the node's own bridge (BenchNetwork).
        dev.cnioperator.testkit.Commands.run("ip", "link", "del", BenchCluster.bridgeOf(NODE));
      }
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
    jar = AgentJvm.copyJar(cluster.workDir());

    List<String> j17 = AgentJvm.thisJava();
    Path work = cluster.workDir();
    List<String> chart = with(CHART, POD_LIMIT);
    List<String> chart17 = with(chartFor17(), POD_LIMIT);
    // An AOT cache refuses any -Xshare option beside it; it maps the JDK's own classes as well.
    List<String> chartAot = chart.stream().filter(o -> !o.startsWith("-Xshare:")).toList();
    // The chart's options before issue 13 chose one compiler thread, a 16m code cache, a heap that
    // shrinks and no perf data file: kept as a row, so the choice is measured again in every run.
    List<String> before =
        with(
            List.of(
                "-XX:+UseSerialGC",
                "-Xss256k",
                "-Xms8m",
                "-Xmx64m",
                "-XX:TieredStopAtLevel=1",
                "-XX:ReservedCodeCacheSize=32m",
                "-XX:MaxMetaspaceSize=80m",
                "-Xshare:auto"),
            POD_LIMIT);
    Path cds17 = work.resolve("agent-17.jsa");
    Path aot25 = work.resolve("agent-25.aot");
    List<Variant> variants = new ArrayList<>();
    variants.add(new Variant("17, the chart's Java 17 options", j17, chart17, null, null));
    variants.add(
        new Variant(
            "17, the chart's Java 17 options + AppCDS",
            j17,
            chart17,
            cds17,
            with(chart17, "-XX:ArchiveClassesAtExit=" + cds17)));
    variants.add(new Variant("17, the chart's before issue 13", j17, before, null, null));
    List<String> j25 = List.of(JAVA25.toString());
    if (Files.isExecutable(JAVA25)) {
      variants.add(new Variant("Temurin 25, the chart's", j25, chart, null, null));
      variants.add(
          new Variant(
              "Temurin 25, the chart's + AOT cache",
              j25,
              chartAot,
              aot25,
              with(chartAot, "-XX:AOTCacheOutput=" + aot25)));
    } else {
      System.out.println("no Java 25 at " + JAVA25 + " (BENCH_JAVA25): its rows are left out");
    }

    // The JVM the agent image ships (Debian 13's OpenJDK 25), run in the image's own root and
    // configured in-cluster as the DaemonSet's agent is.
    if (IMAGE_ROWS.stream().anyMatch(n -> n.contains(only))) {
      ImageRoot image =
          ImageRoot.unpack(
              BenchReport.outputDir(),
              List.of(work, ToolPaths.pluginDir(), benchClassesDir(), caDir(kubeconfig)));
      images = image;
      podEnv = new java.util.HashMap<>(image.serviceAccount(kubeconfig));
      // BENCH_AGENT_ENV=NAME=value,...: more environment for the image rows (MALLOC_ARENA_MAX=1
      // was tried this way, docs/benchmarks.md §1).
      String extra = System.getenv("BENCH_AGENT_ENV");
      if (extra != null) {
        for (String kv : extra.split(",")) {
          podEnv.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
      }
      System.out.println("image's JVM: " + image.version());
      List<String> img = image.javaCommand();
      Path aotImg = work.resolve("agent-image.aot");
      variants.add(new Variant(IMAGE_ROWS.get(0), img, chart17, null, null));
      variants.add(new Variant(IMAGE_ROWS.get(1), img, chart, null, null));
      variants.add(
          new Variant(
              IMAGE_ROWS.get(2),
              img,
              chartAot,
              aotImg,
              with(chartAot, "-XX:AOTCacheOutput=" + aotImg)));
    }

    // BENCH_BASELINE_JAR: every row without an archive once more with another build of the agent
    // (e.g. the jar before a change), so both builds are measured in the same run.
    String baseline = System.getenv("BENCH_BASELINE_JAR");
    if (baseline != null) {
      Path other = Files.copy(Path.of(baseline), work.resolve("baseline-cni-node-agent.jar"));
      for (Variant v : List.copyOf(variants)) {
        if (v.archive() == null) {
          variants.add(
              variants.indexOf(v) + 1,
              new Variant(v.name() + ", baseline jar", v.java(), v.options(), null, null, other));
        }
      }
    }

    // Each archive comes from a training run of the agent itself on the same jar, as an image
    // build would make it: start, converge, SIGTERM (the archive is written at exit).
    for (Variant v : variants) {
      if (v.archive() == null || !v.name().contains(only) || Files.exists(v.archive())) {
        continue;
      }
      measure(cluster, root, kubeconfig, v.java(), jar, v.training(), net);
      awaitArchive(v.archive());
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
            "floor's idle RSS, median",
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
      Samples bareRss = new Samples();
      for (int i = 0; i < runs; i++) {
        Path build = v.jar() == null ? jar : v.jar();
        double[] f = measureFloor(root, kubeconfig, v.java(), build, v.run(), net);
        bare.add(f[0]);
        bareRss.add(f[1]);
        double[] m = measure(cluster, root, kubeconfig, v.java(), build, v.run(), net);
        start.add(m[0]);
        rss.add(m[1]);
        anon.add(m[2]);
        threads.add(m[3]);
      }
      System.out.printf(Locale.ROOT, "%s: start %s ms, rss %s MiB%n", v.name(), start, rss);
      table.row(
          v.name() + "<br>`" + String.join(" ", v.run()) + "`",
          BenchReport.ms(start.median()),
          BenchReport.ms(start.p99()),
          BenchReport.ms(bare.median()),
          BenchReport.ratio(start.median() / bare.median()),
          mib(rss.median()),
          mib(rss.p99()),
          mib(anon.median()),
          mib(bareRss.median()),
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
            + " s after the conflist appeared (the agent has written its status by then). The floor"
            + " (StartFloor) is the same jar and JVM options reading its CniNode once, writing the"
            + " conflist and then only watching its CniNode: its start is the floor of start-up,"
            + " its idle RSS, taken the same way, the floor of memory for an agent built on this"
            + " client and JVM.");
    report.write();
  }

  /** One agent start on a fresh node: {start→conflist ms, idle RSS MiB, anon MiB, threads}. */
  private double[] measure(
      BenchCluster cluster,
      Path root,
      Path kubeconfig,
      List<String> java,
      Path jar,
      List<String> options,
      BenchNetwork net)
      throws InterruptedException {
    for (String dir : List.of("etc", "opt", "var")) {
      BenchCluster.deleteTree(root.resolve(dir));
    }
    HostPaths paths = HostPaths.under(root, ToolPaths.pluginDir());
    Path conflist = paths.confDir().resolve(net.fileName());
    // The image's JRE has no jcmd, and the host's cannot attach to it: that JVM prints its summary
    // into agent.log as it exits.
    List<String> jvm =
        NMT
            ? with(
                options,
                "-XX:NativeMemoryTracking=summary",
                "-XX:+UnlockDiagnosticVMOptions",
                "-XX:+PrintNMTStatistics")
            : options;
    if (CLASS_LOG) {
      jvm =
          with(
              jvm,
              "-Xlog:class+load=info:file=" + root.resolve("classes.log") + ":uptime",
              "-Dorg.slf4j.simpleLogger.showDateTime=true");
    }
    try (AgentJvm agent =
        AgentJvm.start(
            java,
            jar,
            jvm,
            NODE,
            inImage(java) ? null : kubeconfig,
            inImage(java) ? podEnv : Map.of(),
            paths,
            root.resolve("agent.log"))) {
      double startMillis = awaitFile(agent, conflist, root.resolve("agent.log"));
      Thread.sleep(IDLE.toMillis());
      if (NMT && !inImage(java)) {
        System.out.println(agent.nativeMemorySummary());
      }
      return new double[] {startMillis, agent.rssMib(), agent.rssAnonMib(), agent.threads()};
    }
  }

  /** The floor with the same JVM options: {millis until its conflist is on disk, idle RSS MiB}. */
  private double[] measureFloor(
      Path root,
      Path kubeconfig,
      List<String> java,
      Path jar,
      List<String> options,
      BenchNetwork net)
      throws InterruptedException {
    Path confDir = root.resolve("floor/net.d");
    BenchCluster.deleteTree(confDir);
    try (AgentJvm floor =
        AgentJvm.startFloor(
            java,
            jar,
            options,
            NODE,
            inImage(java) ? null : kubeconfig,
            inImage(java) ? podEnv : Map.of(),
            confDir,
            root.resolve("floor.log"))) {
      double startMillis =
          awaitFile(floor, confDir.resolve(net.fileName()), root.resolve("floor.log"));
      Thread.sleep(IDLE.toMillis());
      return new double[] {startMillis, floor.rssMib()};
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

  /**
   * Waits for a training run's archive: an AOT cache is assembled by a second JVM after the
   * training JVM exits.
   */
  private static void awaitArchive(Path archive) throws InterruptedException {
    for (int i = 0; i < 1200 && !Files.exists(archive); i++) {
      Thread.sleep(100);
    }
    if (!Files.exists(archive)) {
      throw new IllegalStateException("the training run wrote no class archive " + archive);
    }
    Thread.sleep(1000); // written under its own name: let the writer finish and exit
  }

  private static List<String> chartAgentOptions() {
    Path values = ToolPaths.repoRoot().resolve("charts/cni-operator/values.yaml");
    String section = "";
    try {
      for (String line : Files.readAllLines(values)) {
        if (line.matches("^[A-Za-z].*:.*")) {
          section = line.substring(0, line.indexOf(':'));
        }
        String t = line.trim();
        if (section.equals("agent") && t.startsWith("javaToolOptions:")) {
          String v = t.substring("javaToolOptions:".length()).trim().replace("\"", "");
          return List.of(v.split("\\s+"));
        }
      }
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    throw new IllegalStateException("no agent.javaToolOptions in " + values);
  }

  /**
   * Whether {@code java} runs in the image's root: such a row configures its client in-cluster, as
   * the DaemonSet's agent does, instead of parsing a kubeconfig.
   */
  private static boolean inImage(List<String> java) {
    return java.get(0).equals("chroot");
  }

  /** The directory of the API server's CA certificate the kubeconfig names. */
  static Path caDir(Path kubeconfig) {
    String ca = LocalControlPlane.readKubeconfig(kubeconfig).getCaCertFile();
    if (ca == null) {
      throw new IllegalStateException("no certificate-authority in " + kubeconfig);
    }
    return Path.of(ca).getParent();
  }

  /** The directory of this benchmark's own classes (the floor runs from there). */
  static Path benchClassesDir() throws java.net.URISyntaxException {
    return Path.of(
        FootprintBench.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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
