package dev.cnioperator.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Steady-state API cost: requests the API server serves while N agents and the operator sit idle
 * with a converged network under the product's defaults (CHECK every 60 s, IPAM cleanup on), from
 * the API server's own {@code apiserver_request_total}. The reference is a window of the same
 * length right after, with the agents and the operator stopped: what the control plane does alone
 * (kube-controller-manager, the API server's own leases). The product's cost is the difference.
 *
 * <p>Nodes join in steps of {@value #JOIN_STEP}, each step's agents proving the network before the
 * next joins, as a cluster grows: a thousand agents started at once would run a thousand probe
 * attachments on this machine's two cores at once, and time out.
 *
 * <p>{@code e2e/bin/bench apicost [N] [window seconds] [windows] [publish]} (defaults: 100 nodes,
 * 300 s, 3): the figures are medians of the windows. With {@code publish}, the network is published
 * to the scheduler ({@code spec.scheduling.publishDevices}): each agent keeps its node's
 * ResourceSlice, which must cost no write either while nothing changes.
 */
public final class ApiCostBench {
  private static final Duration SETTLE = Duration.ofSeconds(30);
  private static final int JOIN_STEP = 100;

  /** Differences below this many requests per window, outside our resources, are noise. */
  private static final int NOISE = 3;

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    Duration window = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 300);
    int windows = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    boolean publish = args.length > 3 && "publish".equals(args[3]);
    ApiRequestCounts product;
    ApiRequestCounts alone;
    String group = "cost" + n;
    try (BenchCluster cluster = BenchCluster.start("apicost")) {
      // CHECK and cleanup as shipped: their passes must not cost writes either.
      BenchNetwork net = BenchNetwork.withProductDefaults("cost" + n, group);
      if (publish) {
        net = net.withPublishedDevices();
      }
      try (InProcessAgents agents = InProcessAgents.start(cluster, group, Math.min(n, JOIN_STEP))) {
        cluster.applyAndAwaitReady(agents, net);
        while (agents.nodes().size() < n) {
          int joined = agents.nodes().size();
          agents.growTo(cluster, group, Math.min(n, joined + JOIN_STEP));
          cluster.awaitReady(agents.confDirs().subList(joined, agents.nodes().size()), net);
          System.out.printf(Locale.ROOT, "%d nodes hold the network%n", agents.nodes().size());
        }
        Thread.sleep(SETTLE.toMillis());
        System.out.printf(
            Locale.ROOT, "converged; %d idle windows of %s with the product%n", windows, window);
        product = windows(cluster, window, windows);
        cluster.operator().stop();
      }
      Thread.sleep(SETTLE.toMillis());
      System.out.printf(
          Locale.ROOT, "%d idle windows of %s with the control plane alone%n", windows, window);
      alone = windows(cluster, window, windows);
    } finally {
      // The agents' revision probes made their nodes' bridges, and CHECK's gateway the shared one.
      BenchCluster.deleteBridges(group, n);
      // host-local's reservations (the network is named as the group) and the shared bridge.
      BenchCluster.deleteSharedBridgeAndReservations(group);
    }
    report(n, window, windows, publish, product, alone);
    System.exit(0);
  }

  /** The per-row median of {@code count} consecutive windows. */
  private static ApiRequestCounts windows(BenchCluster cluster, Duration window, int count)
      throws InterruptedException {
    List<ApiRequestCounts> each = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ApiRequestCounts before = ApiRequestCounts.scrape(cluster.controlPlane().client());
      Thread.sleep(window.toMillis());
      ApiRequestCounts served =
          ApiRequestCounts.scrape(cluster.controlPlane().client()).minus(before);
      each.add(served);
      // Each window's writes, so that one window's differing from the median shows.
      System.out.printf(
          Locale.ROOT,
          "window %d: writes %s%n",
          i + 1,
          served.byVerbAndResource().entrySet().stream()
              .filter(e -> ApiRequestCounts.isWrite(e.getKey()))
              .map(e -> e.getKey() + "=" + e.getValue().intValue())
              .toList());
    }
    return ApiRequestCounts.median(each);
  }

  private static void report(
      int n,
      Duration window,
      int windows,
      boolean publish,
      ApiRequestCounts product,
      ApiRequestCounts alone) {
    double perNodeHour = 3600.0 / window.toSeconds() / n;
    BenchReport report =
        new BenchReport(
            "apicost",
            "Steady-state API cost: "
                + n
                + " idle agents + the operator, per node per hour"
                + (publish ? ", the network published to the scheduler" : ""));
    BenchReport.Table table =
        report.table(
            "verb resource",
            "with product (median window)",
            "control plane alone (median window)",
            "product's share per node per hour",
            "write?");
    Set<String> keys = new TreeSet<>(product.byVerbAndResource().keySet());
    keys.addAll(alone.byVerbAndResource().keySet());
    double reads = 0;
    double writes = 0;
    double leaseWrites = 0;
    int hidden = 0;
    for (String k : keys) {
      double diff = product.get(k) - alone.get(k);
      if (!k.contains("cnioperator.dev/")
          && !k.contains("resource.k8s.io/")
          && Math.abs(diff) < NOISE) {
        hidden++; // the control plane's own watch re-opens, in both windows alike
        continue;
      }
      double share = diff * perNodeHour;
      if (k.endsWith("coordination.k8s.io/leases")) {
        // One Lease for the whole cluster: the operator's leader election, not a cost per node.
        if (ApiRequestCounts.isWrite(k)) {
          leaseWrites += diff * 3600.0 / window.toSeconds();
        }
      } else if (ApiRequestCounts.isWrite(k)) {
        writes += Math.max(0, share);
      } else {
        reads += Math.max(0, share);
      }
      table.row(
          "`" + k + "`",
          fmt(product.get(k)),
          fmt(alone.get(k)),
          String.format(Locale.ROOT, "%.2f", share),
          ApiRequestCounts.isWrite(k) ? "write" : "read");
    }
    table.end();
    report.note(
        String.format(
            Locale.ROOT,
            "Medians of %d windows of %d s each, after %d s of settling. Product's share = (with − alone) ×"
                + " 3600 / window / %d nodes. %d rows where the two windows differ by less than %d"
                + " requests and no CniNode, CniNetwork or DRA object is involved are left out (the control"
                + " plane's own watch re-opens). **Agents and operator, per node per hour: %.1f"
                + " reads, %.1f writes** (target: no writes — %s). **The operator's leader"
                + " election Lease, for the whole cluster: %.0f writes per hour.** WATCH counts"
                + " watch requests opened (re-opened when the server ends them), not events.",
            windows,
            window.toSeconds(),
            SETTLE.toSeconds(),
            n,
            hidden,
            NOISE,
            reads,
            writes,
            writes == 0 ? "met" : "**missed**",
            leaseWrites));
    report.write();
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.0f", v);
  }
}
