package dev.cnioperator.bench;

import dev.cnioperator.agent.AgentProgram;
import dev.cnioperator.agent.check.AttachmentChecker;
import dev.cnioperator.agent.check.ReportedFailures;
import dev.cnioperator.agent.kube.AgentEvents;
import dev.cnioperator.agent.network.AttachmentRuntimes;
import dev.cnioperator.agent.network.SandboxNetns;
import dev.cnioperator.agent.observe.AgentMetrics;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.cni.runtime.CniRuntime;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * CHECK sweep: N live attachments (default 110, a node's default pod limit) on a bridge network in
 * real namespaces; one full sweep through the agent's {@link AttachmentChecker}, wired as the agent
 * wires it, against the same CHECKs run one by one with cnitool. Every CHECK must pass, or the
 * figures would be of failures.
 *
 * <p>{@code e2e/bin/bench checksweep [attachments] [runs]} (defaults: 110, 5)
 */
public final class CheckSweepBench {
  /** The agent's CHECK concurrency (AgentProgram.CHECK_CONCURRENCY). */
  private static final int AGENT_CONCURRENCY = 4;

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int count = args.length > 0 ? Integer.parseInt(args[0]) : 110;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Samples agent = new Samples();
    Samples sequential = new Samples();
    Samples cnitool = new Samples();
    try (BridgeAttachments net = new BridgeAttachments("10.220.1.0/24");
        KubernetesClient unused = unreachableClient()) {
      Runtime.getRuntime().addShutdownHook(new Thread(net::close));
      List<BridgeAttachments.Live> live = net.add(count);
      System.out.printf(Locale.ROOT, "%d attachments added on %s%n", live.size(), net.bridge);
      AttachmentChecker four = checker(net, unused, AGENT_CONCURRENCY);
      AttachmentChecker one = checker(net, unused, 1);
      for (int i = 0; i < runs; i++) {
        agent.add(sweep(four, net, count));
        sequential.add(sweep(one, net, count));
        long t0 = System.nanoTime();
        for (BridgeAttachments.Live l : live) {
          net.cnitool("check", l).orThrow("cnitool check " + l.netns());
        }
        cnitool.add((System.nanoTime() - t0) / 1e6);
        System.out.printf(Locale.ROOT, "run %d: agent %s cnitool %s%n", i + 1, agent, cnitool);
      }
    }
    BenchReport report =
        new BenchReport("checksweep", "CHECK sweep: " + count + " attachments on a bridge network");
    BenchReport.Table table =
        report.table(
            "how", "sweep median", "p99", "per attachment", "ratio to cnitool", "target < 1.0?");
    row(
        table,
        "agent (AttachmentChecker, " + AGENT_CONCURRENCY + " at a time)",
        agent,
        cnitool,
        count);
    row(table, "agent code, 1 at a time", sequential, cnitool, count);
    row(table, "cnitool check, one by one (reference)", cnitool, cnitool, count);
    table.end();
    report.note(
        runs
            + " sweeps each, interleaved; p99 is the largest. Plugins: reference plugins"
            + " v1.9.0 (bridge + host-local), CNI 1.0.0; each CHECK runs the chain with the cached"
            + " configuration and result (libcni's cache in /var/lib/cni, where cnitool finds them"
            + " too). cnitool pays a process start per CHECK on top of the plugin executions.");
    report.write();
    System.exit(0);
  }

  private static void row(
      BenchReport.Table table, String how, Samples s, Samples reference, int count) {
    double ratio = s.median() / reference.median();
    table.row(
        how,
        BenchReport.ms(s.median()),
        BenchReport.ms(s.p99()),
        String.format(Locale.ROOT, "%.1f ms", s.median() / count),
        BenchReport.ratio(ratio),
        s == reference ? "" : BenchReport.met(ratio < 1.0));
  }

  private static double sweep(AttachmentChecker checker, BridgeAttachments net, int count)
      throws InterruptedException {
    long t0 = System.nanoTime();
    AttachmentSummary summary =
        checker.check(
            net.managed(),
            new ReportedFailures(),
            BridgeAttachments.agentMetrics().network(net.managed().name()));
    double millis = (System.nanoTime() - t0) / 1e6;
    if (summary.getTotal() != count || summary.getHealthy() != count) {
      throw new IllegalStateException("sweep did not see every attachment healthy: " + summary);
    }
    return millis;
  }

  /** The checker as AgentProgram builds it. */
  private static AttachmentChecker checker(
      BridgeAttachments net, KubernetesClient client, int concurrency) {
    AgentMetrics metrics = BridgeAttachments.agentMetrics();
    CniRuntime runtime = net.agentRuntime(metrics);
    ExecutorService workers =
        Executors.newFixedThreadPool(
            concurrency,
            r -> {
              Thread t = new Thread(r, "check");
              t.setDaemon(true);
              return t;
            });
    return new AttachmentChecker(
        new AttachmentRuntimes(runtime, runtime),
        workers,
        new AgentEvents(client, "bench-node", Clock.systemUTC(), AgentProgram.API_CALL_DEADLINE),
        SandboxNetns.NONE,
        // The network's file as the agent wrote it: each attachment is compared with it, as on a
        // node (where it is read from disk once a round).
        network -> network.conflist().bytes(),
        // Its own file, no drop-ins.
        network -> false);
  }

  /** Events go to pods of failing attachments only; every attachment here is healthy. */
  private static KubernetesClient unreachableClient() {
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:1").build())
        .build();
  }
}
