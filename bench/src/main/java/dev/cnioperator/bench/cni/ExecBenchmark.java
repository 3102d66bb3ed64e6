package dev.cnioperator.bench.cni;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.cni.runtime.HostNetworkFixture;
import dev.cnioperator.cni.tool.CniTool;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * ADD + CHECK + DEL of the same bridge + host-local + portmap chain (reference plugins, CNI 1.1.0)
 * in a real network namespace, N times through this library in-process and N times through libcni's
 * cnitool, interleaved; prints the median time per operation of each and their ratio. Not a test:
 * it measures, it asserts nothing. Needs root and the provisioned tools.
 *
 * <p>{@code e2e/bin/bench exec [rounds=30]}
 */
public final class ExecBenchmark {
  private static final List<String> VERBS = List.of("add", "check", "del");

  private ExecBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int warmup = Math.max(3, rounds / 10);
    Path plugins = ToolPaths.pluginDir();
    Path cnitool = ToolPaths.cnitool();
    try (HostNetworkFixture host = new HostNetworkFixture("bench")) {
      String conflist =
          host.conflist("1.1.0", host.bridgePlugin(), host.tuningPlugin(), host.portmapPlugin());
      host.writeConflist(conflist);
      NetworkConfigList list = NetworkConfigList.parse(conflist.getBytes(StandardCharsets.UTF_8));
      String netns = host.netns.path().toString();
      Attachment attachment =
          new Attachment(
              CniTool.containerIdFor(netns),
              netns,
              "eth0",
              List.of(),
              Map.of("portMappings", new ObjectMapper().readTree(host.portMappings())));
      // All use libcni's cache directory, as cnitool has no other; libcni never fsyncs it.
      CniRuntime durable = runtime(plugins, true);
      CniRuntime unsynced = runtime(plugins, false);
      Map<String, String> env =
          Map.of(
              "NETCONFPATH", host.netconfDir.toString(),
              "CNI_PATH", plugins.toString(),
              "CAP_ARGS", "{\"portMappings\":" + host.portMappings() + "}");

      Map<String, List<Long>> library = samples();
      Map<String, List<Long>> libraryNoFsync = samples();
      Map<String, List<Long>> tool = samples();
      for (int i = 0; i < warmup + rounds; i++) {
        boolean measured = i >= warmup;
        Map<String, Long> lib = cycle(durable, list, attachment);
        Map<String, Long> libNoFsync = cycle(unsynced, list, attachment);
        Map<String, Long> cli = new LinkedHashMap<>();
        for (String verb : VERBS) {
          cli.put(
              verb,
              nanos(
                  () ->
                      Commands.run(
                              List.of(cnitool.toString(), verb, host.network, netns),
                              env,
                              null,
                              Duration.ofSeconds(30))
                          .orThrow("cnitool " + verb)));
        }
        if (measured) {
          VERBS.forEach(v -> library.get(v).add(lib.get(v)));
          VERBS.forEach(v -> libraryNoFsync.get(v).add(libNoFsync.get(v)));
          VERBS.forEach(v -> tool.get(v).add(cli.get(v)));
        }
      }
      print(rounds, warmup, library, libraryNoFsync, tool);
    }
  }

  private static CniRuntime runtime(Path plugins, boolean fsync) {
    return new CniRuntime(
        new ProcessPluginExecutor(),
        List.of(plugins),
        new ResultCache(ResultCache.DEFAULT_DIR, fsync),
        Duration.ofSeconds(30));
  }

  /** One ADD, CHECK and DEL through the library: nanoseconds per verb. */
  private static Map<String, Long> cycle(
      CniRuntime runtime, NetworkConfigList list, Attachment attachment) {
    Map<String, Long> took = new LinkedHashMap<>();
    took.put("add", nanos(() -> runtime.addNetworkList(list, attachment)));
    took.put("check", nanos(() -> runtime.checkNetworkList(list, attachment)));
    took.put("del", nanos(() -> runtime.delNetworkList(list, attachment)));
    return took;
  }

  private static Map<String, List<Long>> samples() {
    Map<String, List<Long>> m = new LinkedHashMap<>();
    VERBS.forEach(v -> m.put(v, new ArrayList<>()));
    return m;
  }

  private static long nanos(Runnable op) {
    long started = System.nanoTime();
    op.run();
    return System.nanoTime() - started;
  }

  private static void print(
      int rounds,
      int warmup,
      Map<String, List<Long>> library,
      Map<String, List<Long>> libraryNoFsync,
      Map<String, List<Long>> tool) {
    System.out.printf(
        "ExecBenchmark: bridge+host-local+tuning+portmap, CNI 1.1.0, %d rounds after %d warm-up%n",
        rounds, warmup);
    System.out.printf(
        "%-6s %12s %12s %12s %8s %8s%n",
        "op", "library ms", "no-fsync ms", "cnitool ms", "ratio", "ratio*");
    for (String verb : VERBS) {
      double lib = median(library.get(verb));
      double unsynced = median(libraryNoFsync.get(verb));
      double cli = median(tool.get(verb));
      System.out.printf(
          "%-6s %12.2f %12.2f %12.2f %8.2f %8.2f%n",
          verb, lib, unsynced, cli, lib / cli, unsynced / cli);
    }
    System.out.println(
        "ratio = library/cnitool; ratio* = library without the cache fsync (libcni never fsyncs)");
  }

  private static double median(List<Long> nanos) {
    List<Long> sorted = nanos.stream().sorted().toList();
    int n = sorted.size();
    long mid = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return mid / 1e6;
  }
}
