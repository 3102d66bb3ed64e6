package dev.cnioperator.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

/**
 * How soon a chain declared onto a foreign primary ({@code spec.appendTo}) is back in effect after
 * that primary rewrites its file, as flannel's and Calico's init containers do on every start:
 * {@code cp} truncates the file and writes it without the declared entries. One agent with the
 * chart's defaults (its resync every 60 s: anything sooner is the directory watch), a ptp network
 * {@code cbr0} in the node's conf dir as the foreign primary, {@code tuning} declared onto it. Each
 * round rewrites the file and polls it (every millisecond) until it holds the tuning entry again;
 * the agent's writes are counted from its log. The reference is the resync: what the wait would be
 * with no watch, on average half of it.
 *
 * <p>{@code e2e/bin/bench chainback [rounds]} (default 30). Root: the first revision is proven by a
 * probe attachment in a network namespace, on 10.220.250.0/24.
 */
public final class ChainBackBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GROUP = "chainback";
  private static final String FILE = "10-flannel.conflist";

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    Samples back = new Samples();
    long writes;
    try (BenchCluster cluster = BenchCluster.start(GROUP)) {
      String node = "chainback-0";
      cluster.createNode(node, GROUP);
      Path root = cluster.workDir().resolve("nodes/" + node);
      Path bin = Files.createDirectories(root.resolve("opt/cni/bin"));
      for (String plugin : List.of("ptp", "host-local")) {
        Files.copy(
            ToolPaths.pluginDir().resolve(plugin),
            bin.resolve(plugin),
            StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.COPY_ATTRIBUTES);
      }
      String foreign =
          "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":"
              + "{\"type\":\"host-local\",\"subnet\":\"10.220.250.0/24\",\"dataDir\":\""
              + root.resolve("var/lib/cni/networks")
              + "\"}}]}";
      Path file = Files.createDirectories(root.resolve("etc/cni/net.d")).resolve(FILE);
      Files.writeString(file, foreign);
      SandboxNode agent = cluster.product().startAgent(node);
      cluster.apply(
          """
          apiVersion: cnioperator.dev/v1alpha1
          kind: CniNetwork
          metadata:
            name: chainback
          spec:
            appendTo: cbr0
            nodeSelector:
              matchLabels: {%s: %s}
            plugins:
              - type: tuning
                mtu: 1400
          """
              .formatted(BenchCluster.GROUP_LABEL, GROUP));
      awaitChained(file, 120_000);
      for (int round = 0; round < rounds; round++) {
        Thread.sleep(500);
        long t0 = System.nanoTime();
        Files.writeString(file, foreign);
        awaitChained(file, 30_000);
        back.add((System.nanoTime() - t0) / 1e6);
      }
      Thread.sleep(500);
      writes =
          Files.readAllLines(agent.agent().log()).stream()
              .filter(l -> l.contains("event=chain-appended"))
              .count();
    }
    report(rounds, back, writes);
    System.exit(0);
  }

  private static void awaitChained(Path file, long timeoutMillis) throws Exception {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    while (!chained(file)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(FILE + " never held the tuning entry again");
      }
      Thread.sleep(1);
    }
  }

  private static boolean chained(Path file) {
    try {
      JsonNode plugins = JSON.readTree(Files.readString(file)).get("plugins");
      return plugins != null
          && plugins.size() == 2
          && "tuning".equals(plugins.at("/1/type").asText());
    } catch (IOException | RuntimeException half) {
      return false;
    }
  }

  private static void report(int rounds, Samples back, long writes) throws IOException {
    String table =
        String.format(
            Locale.ROOT,
            "| rounds | rewrite to chain back, median | p95 | max | agent writes (first + rounds) |"
                + " resync (the reference: no watch) |%n|---|---|---|---|---|---|%n"
                + "| %d | %.0f ms | %.0f ms | %.0f ms | %d (%d expected) | 60 s: 30 s on average |%n",
            rounds,
            back.median(),
            back.percentile(95),
            back.max(),
            writes,
            rounds + 1);
    System.out.print(table);
    Files.writeString(BenchReport.outputDir().resolve("chainback.md"), table);
  }
}
