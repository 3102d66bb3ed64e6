package dev.cnioperator.bench;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.cni.tool.CniTool;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Agent memory while it CHECKs: one agent process with the chart's JVM options, first idle, then
 * with N live attachments (default 110) of its network CHECKed every 5 s; RSS sampled every 200 ms.
 * The attachments are added by the cni library with the rendered conflist from the agent's CniNode
 * into the agent's own cache dir, each in its own namespace.
 *
 * <p>{@code e2e/bin/bench checkfootprint [attachments] [seconds per phase]} (defaults: 110, 40)
 */
public final class CheckFootprintBench {
  private static final String NODE = "checkfp-node";

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 110;
    Duration phase = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 40);
    BenchNetwork net = new BenchNetwork("checkfp-net", "checkfp", 0, 5);
    List<NetworkNamespace> namespaces = new ArrayList<>();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> cleanUp(namespaces, net)));
    Samples idle = new Samples();
    Samples checking = new Samples();
    Path log;
    try (BenchCluster cluster = BenchCluster.start("checkfootprint")) {
      cluster.createNode(NODE, net.group());
      cluster.apply(net.yaml());
      NodeNetwork spec = cluster.awaitNodeNetwork(NODE);
      Path root = cluster.workDir().resolve("nodes/" + NODE);
      HostPaths paths = HostPaths.under(root, ToolPaths.pluginDir());
      log = root.resolve("agent.log");
      try (AgentJvm agent =
          AgentJvm.start(
              AgentJvm.thisJava(),
              AgentJvm.copyJar(cluster.workDir()),
              options(),
              NODE,
              cluster.agentKubeconfig(NODE, root),
              java.util.Map.of(),
              paths,
              log)) {
        while (!Files.exists(paths.confDir().resolve(net.fileName()))) {
          Thread.sleep(50);
        }
        sample(agent, phase, idle);
        addAttachments(spec, paths, count, namespaces);
        sample(agent, phase, checking);
      }
    } finally {
      cleanUp(namespaces, net);
    }
    long passes =
        Files.readAllLines(log).stream()
            .filter(l -> l.contains("event=check-pass") && l.contains("total=" + count))
            .count();
    BenchReport report =
        new BenchReport("checkfootprint", "Agent memory while CHECKing " + count + " attachments");
    report
        .table("phase", "RSS median", "RSS max", "samples")
        .row("idle, converged", mib(idle.median()), mib(idle.max()), idle.count())
        .row(
            count + " attachments CHECKed every 5 s (" + passes + " sweeps)",
            mib(checking.median()),
            mib(checking.max()),
            checking.count())
        .end();
    report.note(
        "JVM options: the chart's today, in a 192Mi pod (`"
            + String.join(" ", options())
            + "`). Each phase "
            + phase.toSeconds()
            + " s; VmRSS every 200 ms. Bridge + host-local, reference plugins v1.9.0.");
    report.write();
    System.exit(0);
  }

  private static List<String> options() {
    // The benchmark's own JVM (Debian's 17 on this machine): the chart's options it accepts.
    List<String> o = new ArrayList<>(FootprintBench.chartFor17());
    o.add(FootprintBench.POD_LIMIT);
    return o;
  }

  private static void sample(AgentJvm agent, Duration phase, Samples into)
      throws InterruptedException {
    long end = System.nanoTime() + phase.toNanos();
    while (System.nanoTime() < end) {
      into.add(agent.rssMib());
      Thread.sleep(200);
    }
  }

  private static void addAttachments(
      NodeNetwork spec, HostPaths paths, int count, List<NetworkNamespace> namespaces) {
    NetworkConfigList list =
        NetworkConfigList.parse(
            spec.getContent().getBytes(StandardCharsets.UTF_8), spec.getFileName());
    CniRuntime runtime =
        new CniRuntime(
            new ProcessPluginExecutor(),
            List.of(ToolPaths.pluginDir()),
            new ResultCache(paths.cacheDir()),
            Duration.ofSeconds(30));
    for (int i = 0; i < count; i++) {
      NetworkNamespace ns = NetworkNamespace.create("cfp");
      namespaces.add(ns);
      String netns = ns.path().toString();
      runtime.addNetworkList(list, Attachment.of(CniTool.containerIdFor(netns), netns, "eth0"));
    }
  }

  /** Namespaces (and with them the pods' veths), the bridge and host-local's reservations. */
  private static synchronized void cleanUp(List<NetworkNamespace> namespaces, BenchNetwork net) {
    namespaces.forEach(NetworkNamespace::close);
    namespaces.clear();
    Commands.run("ip", "link", "del", BenchNetwork.BRIDGE);
    BenchCluster.deleteTree(ResultCache.DEFAULT_DIR.resolve("networks").resolve(net.name()));
  }

  private static String mib(double v) {
    return String.format(Locale.ROOT, "%.1f MiB", v);
  }
}
