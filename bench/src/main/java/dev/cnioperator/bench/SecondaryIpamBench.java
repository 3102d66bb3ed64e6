package dev.cnioperator.bench;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A secondary network's IPAM per pod start on real nodes: the same macvlan network with (a) {@code
 * spec.nodeSlices}' rendering, host-local with the node's slice of the shared subnet as its range,
 * and (b) whereabouts v0.9.2 over the whole subnet, which allocates from an IPPool through the API
 * server on every ADD. Two kubelet nodes ({@link KubeletCluster}), each with an uplink of its own
 * into a bridge of the bench's (the macvlan master); on each node, attachments in network
 * namespaces of that node, each ADDed by cnitool inside the node as Multus runs a delegate
 * (libcni), whereabouts authenticating with a ServiceAccount token bound to the RBAC its ADD and
 * DEL need.
 *
 * <p>The IPAMs take turns in batches (the order swapped every round) in two modes: one pod start at
 * a time in the cluster, and both nodes at once. Around each batch the API server's own request
 * counts are read; idle windows as long as the batches, taken between rounds, give the control
 * plane's own writes (the kubelets' Leases and Node status, the API server's Lease), which are
 * subtracted. At the end of each mode every attachment is DELed, also timed and counted.
 *
 * <p>{@code e2e/bin/bench ipam [pods per node] [runs] [batch]} (defaults: 50, 1, 10)
 */
public final class SecondaryIpamBench {
  /** The shared subnet; test traffic stays on addresses the project owns. */
  static final String SUBNET = "10.235.0.0/16";

  private static final int NODES = 2;
  private static final String POD_NAMESPACE = "bench";
  private static final String WHEREABOUTS_NAMESPACE = "kube-system";
  private static final String ACCOUNT = "bench-whereabouts";

  /** The bench's conflists, in each node: not the runtime's conf dir, as Multus's delegates. */
  private static final String CONF_DIR = "/etc/cni/bench.d";

  /** whereabouts' flat file and kubeconfig where its installer puts them (in each node). */
  private static final String WHEREABOUTS_DIR = "/etc/cni/net.d/whereabouts.d";

  /** The macvlan master's name inside each node. */
  private static final String UPLINK = "uplink0";

  private static final Pattern ERROR_LINE =
      Pattern.compile("(?:\\[error\\]|^E\\d{4} [0-9:.]+ +\\d+ )(.*)$");
  private static final Pattern ADDRESS = Pattern.compile("\"address\":\\s*\"([0-9.]+)/");

  enum Ipam {
    SLICES("bench-slices", "per-node slice, host-local", "slices"),
    WHEREABOUTS("bench-whereabouts", "whereabouts v0.9.2", "whereabouts");

    final String network;
    final String label;
    final String shortLabel;

    Ipam(String network, String label, String shortLabel) {
      this.network = network;
      this.label = label;
      this.shortLabel = shortLabel;
    }
  }

  enum Mode {
    ONE_AT_A_TIME("one pod start at a time in the cluster", "one at a time"),
    NODES_AT_ONCE("both nodes at once (one at a time per node)", "nodes at once");

    final String label;
    final String shortLabel;

    Mode(String label, String shortLabel) {
      this.label = label;
      this.shortLabel = shortLabel;
    }
  }

  /** One attachment: the node, its network namespace there and the pod it stands for. */
  record Attachment(BenchNode node, Ipam ipam, String netns, String pod) {}

  /** What one IPAM did in one mode: its operations' times and the API requests of its windows. */
  static final class Figures {
    final Samples times = new Samples();
    final Map<String, Double> requests = new TreeMap<>();
    double seconds;
    int withErrors;
    final Set<String> errorSamples = new TreeSet<>();

    /**
     * Counts the operations whose stderr has an error line ({@code [error]}, or klog's {@code E}):
     * whereabouts logs at debug level to stderr by default, which is not an error.
     */
    synchronized void stderr(String text) {
      boolean error = false;
      for (String line : text.split("\n")) {
        Matcher m = ERROR_LINE.matcher(line);
        if (m.find()) {
          error = true;
          if (errorSamples.size() < 3) {
            errorSamples.add(m.group(1).strip());
          }
        }
      }
      if (error) {
        withErrors++;
      }
    }

    void window(ApiRequestCounts delta, double windowSeconds) {
      delta.byVerbAndResource().forEach((k, v) -> requests.merge(k, v, Double::sum));
      seconds += windowSeconds;
    }
  }

  private final KubeletCluster cluster;
  private final KubernetesClient admin;
  private final List<BenchNode> nodes = new ArrayList<>();
  private final String segment = TestNames.unique("bseg");
  private final Map<Mode, Map<Ipam, Figures>> adds = new EnumMap<>(Mode.class);
  private final Map<Ipam, Figures> dels = new EnumMap<>(Ipam.class);
  private final Map<String, Double> background = new TreeMap<>();
  private double backgroundSeconds;
  private final List<Attachment> live = new ArrayList<>();
  private final AtomicBoolean cleaned = new AtomicBoolean();

  private SecondaryIpamBench(KubeletCluster cluster) {
    this.cluster = cluster;
    this.admin = cluster.controlPlane().client();
    for (Mode m : Mode.values()) {
      Map<Ipam, Figures> byIpam = new EnumMap<>(Ipam.class);
      for (Ipam i : Ipam.values()) {
        byIpam.put(i, new Figures());
      }
      adds.put(m, byIpam);
    }
    for (Ipam i : Ipam.values()) {
      dels.put(i, new Figures());
    }
  }

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int perNode = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    if (perNode % batch != 0) {
      throw new IllegalArgumentException(
          "pods per node (" + perNode + ") must be a multiple of the batch (" + batch + ")");
    }
    if (perNode > 250) {
      throw new IllegalArgumentException("a node's slice (a /24) holds at most 250 pods here");
    }
    String started =
        java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            + ", load average "
            + BenchReport.loadAverage();
    KubeletCluster cluster = KubeletCluster.start(NODES);
    SecondaryIpamBench bench = new SecondaryIpamBench(cluster);
    Thread hook = new Thread(bench::cleanUp, "bench-ipam-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      bench.setUp();
      for (int run = 1; run <= runs; run++) {
        for (Mode mode : Mode.values()) {
          bench.measure(mode, perNode, batch, run);
        }
      }
      bench.report(perNode, runs, batch, started);
    } finally {
      bench.cleanUp();
    }
    System.exit(0);
  }

  // ---- setup ------------------------------------------------------------------------------------

  private void setUp() {
    LocalControlPlane cp = cluster.controlPlane();
    for (Path crd : ToolPaths.whereaboutsCrds()) {
      cp.kubectl("apply", "-f", crd.toString()).orThrow("kubectl apply " + crd);
    }
    cp.kubectl(
            "wait",
            "--for=condition=Established",
            "--timeout=60s",
            "crd/ippools.whereabouts.cni.cncf.io",
            "crd/overlappingrangeipreservations.whereabouts.cni.cncf.io")
        .orThrow("wait for whereabouts' CRDs");
    // Exactly what whereabouts' ADD and DEL call (research memo h): no more.
    cp.kubectlWithInput(
            """
            apiVersion: v1
            kind: ServiceAccount
            metadata: {name: %1$s, namespace: %2$s}
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: Role
            metadata: {name: %1$s, namespace: %2$s}
            rules:
            - apiGroups: [whereabouts.cni.cncf.io]
              resources: [ippools]
              verbs: [get, create, patch, list]
            - apiGroups: [whereabouts.cni.cncf.io]
              resources: [overlappingrangeipreservations]
              verbs: [get, create, delete]
            - apiGroups: [coordination.k8s.io]
              resources: [leases]
              verbs: [get, create, update]
            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: RoleBinding
            metadata: {name: %1$s, namespace: %2$s}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %1$s}
            subjects:
            - {kind: ServiceAccount, name: %1$s, namespace: %2$s}
            """
                .formatted(ACCOUNT, WHEREABOUTS_NAMESPACE),
            "apply",
            "-f",
            "-")
        .orThrow("whereabouts' ServiceAccount and Role");
    String token = cp.serviceAccountToken(WHEREABOUTS_NAMESPACE, ACCOUNT, Duration.ofHours(6));
    Commands.run("ip", "link", "add", segment, "type", "bridge").orThrow("ip link add " + segment);
    Commands.run("ip", "link", "set", segment, "up").orThrow("ip link set " + segment + " up");
    List<KubeletNode> kubelets = cluster.nodes();
    for (int i = 0; i < kubelets.size(); i++) {
      BenchNode node = new BenchNode(kubelets.get(i), i);
      nodes.add(node);
      node.uplink(segment);
      node.writeConfiguration(cp, token, cluster.bridge().apiServerUrl());
    }
    System.out.printf(
        Locale.ROOT,
        "nodes %s on segment %s; slices %s%n",
        nodes.stream().map(n -> n.kubelet.name()).toList(),
        segment,
        nodes.stream().map(n -> n.slice).toList());
  }

  // ---- measurement ------------------------------------------------------------------------------

  private void measure(Mode mode, int perNode, int batch, int run) throws Exception {
    ExecutorService perNodeThreads = Executors.newFixedThreadPool(NODES);
    try {
      for (int round = 0; round < perNode / batch; round++) {
        Ipam[] order =
            round % 2 == 0
                ? new Ipam[] {Ipam.SLICES, Ipam.WHEREABOUTS}
                : new Ipam[] {Ipam.WHEREABOUTS, Ipam.SLICES};
        double longest = 0;
        for (Ipam ipam : order) {
          longest = Math.max(longest, batch(mode, ipam, batch, perNodeThreads));
        }
        idle(Math.max(1.0, longest));
        System.out.printf(
            Locale.ROOT,
            "run %d %s round %d: slices %s ms, whereabouts %s ms (medians so far)%n",
            run,
            mode,
            round + 1,
            fmt(adds.get(mode).get(Ipam.SLICES).times.median()),
            fmt(adds.get(mode).get(Ipam.WHEREABOUTS).times.median()));
      }
    } finally {
      perNodeThreads.shutdownNow();
    }
    for (Ipam ipam : Ipam.values()) {
      delAll(ipam);
    }
  }

  /** One batch of {@code batch} ADDs per node of one IPAM, in its own window; its seconds. */
  private double batch(Mode mode, Ipam ipam, int batch, ExecutorService perNodeThreads)
      throws Exception {
    Figures f = adds.get(mode).get(ipam);
    Map<BenchNode, List<Attachment>> planned = new java.util.LinkedHashMap<>();
    for (BenchNode node : nodes) {
      List<Attachment> list = new ArrayList<>();
      for (int k = 0; k < batch; k++) {
        Attachment a = node.newAttachment(ipam);
        synchronized (live) {
          live.add(a);
        }
        list.add(a);
      }
      planned.put(node, list);
    }
    ApiRequestCounts before = ApiRequestCounts.scrape(admin);
    long t0 = System.nanoTime();
    if (mode == Mode.ONE_AT_A_TIME) {
      for (int k = 0; k < batch; k++) {
        for (BenchNode node : nodes) {
          add(planned.get(node).get(k), f);
        }
      }
    } else {
      List<Future<?>> running = new ArrayList<>();
      for (BenchNode node : nodes) {
        running.add(
            perNodeThreads.submit(
                () -> {
                  for (Attachment a : planned.get(node)) {
                    add(a, f);
                  }
                  return null;
                }));
      }
      for (Future<?> r : running) {
        r.get();
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    f.window(ApiRequestCounts.scrape(admin).minus(before), seconds);
    return seconds;
  }

  private static void add(Attachment a, Figures f) {
    long t0 = System.nanoTime();
    CommandResult r = a.node.cnitool("add", a);
    double millis = (System.nanoTime() - t0) / 1e6;
    r.orThrow("cnitool add " + a.ipam.network + " on " + a.node.kubelet.name() + " " + a.netns);
    a.node.checkAddress(a, r.stdout());
    f.times.add(millis);
    f.stderr(r.stderr());
  }

  /** A window with nothing of the bench running: what the control plane writes by itself. */
  private void idle(double seconds) throws InterruptedException {
    ApiRequestCounts before = ApiRequestCounts.scrape(admin);
    long t0 = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    double measured = (System.nanoTime() - t0) / 1e9;
    ApiRequestCounts.scrape(admin)
        .minus(before)
        .byVerbAndResource()
        .forEach((k, v) -> background.merge(k, v, Double::sum));
    backgroundSeconds += measured;
  }

  /** DELs every attachment of {@code ipam}, one at a time, in one window, then its namespaces. */
  private void delAll(Ipam ipam) {
    List<Attachment> mine;
    synchronized (live) {
      mine = live.stream().filter(a -> a.ipam == ipam).toList();
    }
    Figures f = dels.get(ipam);
    ApiRequestCounts before = ApiRequestCounts.scrape(admin);
    long t0 = System.nanoTime();
    for (Attachment a : mine) {
      long s = System.nanoTime();
      CommandResult r = a.node.cnitool("del", a);
      f.times.add((System.nanoTime() - s) / 1e6);
      r.orThrow("cnitool del " + ipam.network + " " + a.netns);
      f.stderr(r.stderr());
    }
    f.window(ApiRequestCounts.scrape(admin).minus(before), (System.nanoTime() - t0) / 1e9);
    for (Attachment a : mine) {
      a.node.deleteNetns(a.netns);
      synchronized (live) {
        live.remove(a);
      }
    }
    LIVE_ADDRESSES.values().removeIf(i -> i == ipam);
    if (ipam == Ipam.SLICES) {
      nodes.forEach(BenchNode::assertNoHostLocalReservation);
    } else {
      assertWhereaboutsEmpty();
    }
  }

  /** whereabouts' IPPools hold no allocation and no overlapping-range reservation is left. */
  private void assertWhereaboutsEmpty() {
    String group = "whereabouts.cni.cncf.io/v1alpha1";
    for (GenericKubernetesResource pool :
        admin
            .genericKubernetesResources(group, "IPPool")
            .inNamespace(WHEREABOUTS_NAMESPACE)
            .list()
            .getItems()) {
      Object spec = pool.getAdditionalProperties().get("spec");
      Object allocations = spec instanceof Map<?, ?> m ? m.get("allocations") : null;
      if (allocations instanceof Map<?, ?> a && !a.isEmpty()) {
        throw new IllegalStateException(
            "IPPool " + pool.getMetadata().getName() + " kept " + a.keySet());
      }
    }
    int reservations =
        admin
            .genericKubernetesResources(group, "OverlappingRangeIPReservation")
            .inNamespace(WHEREABOUTS_NAMESPACE)
            .list()
            .getItems()
            .size();
    if (reservations != 0) {
      throw new IllegalStateException(reservations + " OverlappingRangeIPReservations left");
    }
  }

  // ---- report -----------------------------------------------------------------------------------

  /** Requests of {@code key} per operation in {@code f}'s windows, the background taken out. */
  private double perOperation(Figures f, String key) {
    double expected =
        backgroundSeconds == 0 ? 0 : background.getOrDefault(key, 0.0) / backgroundSeconds;
    return (f.requests.getOrDefault(key, 0.0) - expected * f.seconds) / f.times.count();
  }

  private double perOperation(Figures f, boolean writes) {
    Set<String> keys = new TreeSet<>(f.requests.keySet());
    keys.addAll(background.keySet());
    double sum = 0;
    for (String k : keys) {
      if (ApiRequestCounts.isWrite(k) == writes) {
        sum += perOperation(f, k);
      }
    }
    return sum;
  }

  private void report(int perNode, int runs, int batch, String started) {
    BenchReport report =
        new BenchReport(
            "ipam",
            "A secondary network's IPAM per pod start: per-node slices with host-local against"
                + " whereabouts");
    report.note("Started " + started + ".");
    BenchReport.Table t =
        report.table(
            "pod starts",
            "IPAM",
            "ADDs",
            "ADD median",
            "ADD p99",
            "API writes per ADD",
            "API reads per ADD",
            "slices p99 / whereabouts median");
    for (Mode mode : Mode.values()) {
      Figures slices = adds.get(mode).get(Ipam.SLICES);
      Figures wa = adds.get(mode).get(Ipam.WHEREABOUTS);
      for (Ipam ipam : Ipam.values()) {
        Figures f = adds.get(mode).get(ipam);
        t.row(
            mode.label,
            ipam.label,
            f.times.count(),
            BenchReport.ms(f.times.median()),
            BenchReport.ms(f.times.p99()),
            String.format(Locale.ROOT, "%.2f", perOperation(f, true)),
            String.format(Locale.ROOT, "%.2f", perOperation(f, false)),
            ipam == Ipam.SLICES ? BenchReport.ratio(slices.times.p99() / wa.times.median()) : "");
      }
    }
    t.end();
    BenchReport.Table d =
        report.table("IPAM", "DELs", "DEL median", "DEL p99", "API writes per DEL");
    for (Ipam ipam : Ipam.values()) {
      Figures f = dels.get(ipam);
      d.row(
          ipam.label,
          f.times.count(),
          BenchReport.ms(f.times.median()),
          BenchReport.ms(f.times.p99()),
          String.format(Locale.ROOT, "%.2f", perOperation(f, true)));
    }
    d.end();
    // Every request kind seen in any window, per operation, the background taken out.
    Set<String> keys = new TreeSet<>(background.keySet());
    adds.values().forEach(m -> m.values().forEach(f -> keys.addAll(f.requests.keySet())));
    dels.values().forEach(f -> keys.addAll(f.requests.keySet()));
    List<String> headings = new ArrayList<>(List.of("verb resource", "write?"));
    for (Mode mode : Mode.values()) {
      for (Ipam ipam : Ipam.values()) {
        headings.add(ipam.shortLabel + " ADD, " + mode.shortLabel);
      }
    }
    for (Ipam ipam : Ipam.values()) {
      headings.add(ipam.shortLabel + " DEL");
    }
    headings.add("background per second");
    report.note(
        "API requests per ADD (per DEL in the DEL columns), by verb and resource, the"
            + " control plane's own (background, per second of the idle windows) taken out; rows"
            + " under 0.05 everywhere left out:");
    BenchReport.Table r = report.table(headings.toArray(new String[0]));
    for (String k : keys) {
      List<Object> cells = new ArrayList<>(List.of("`" + k + "`", write(k)));
      boolean shown = false;
      for (Mode mode : Mode.values()) {
        for (Ipam ipam : Ipam.values()) {
          double v = perOperation(adds.get(mode).get(ipam), k);
          shown |= Math.abs(v) >= 0.05;
          cells.add(String.format(Locale.ROOT, "%.2f", v));
        }
      }
      for (Ipam ipam : Ipam.values()) {
        double v = perOperation(dels.get(ipam), k);
        shown |= Math.abs(v) >= 0.05;
        cells.add(String.format(Locale.ROOT, "%.2f", v));
      }
      cells.add(
          String.format(Locale.ROOT, "%.3f", background.getOrDefault(k, 0.0) / backgroundSeconds));
      if (shown) {
        r.row(cells.toArray());
      }
    }
    r.end();
    StringBuilder stderr = new StringBuilder();
    for (Mode mode : Mode.values()) {
      for (Ipam ipam : Ipam.values()) {
        errors(stderr, ipam.label + ", " + mode.label + ":", "ADDs", adds.get(mode).get(ipam));
      }
    }
    for (Ipam ipam : Ipam.values()) {
      errors(stderr, ipam.label + ":", "DELs", dels.get(ipam));
    }
    report.note(
        String.format(
            Locale.ROOT,
            "%d kubelet nodes (containerd 1.6), %d pods per node per IPAM and mode in each of %d"
                + " run(s), in rounds of %d per node, the IPAMs' order swapped every round; p99"
                + " is nearest-rank. Each ADD is `cnitool add` (libcni, as Multus calls a"
                + " delegate) run inside the node (`nsenter` into its network and mount"
                + " namespaces), timed from the bench's JVM: the process starts of nsenter, env"
                + " and cnitool are in both IPAMs' times. Network: macvlan (bridge mode) on the"
                + " node's uplink, CNI 1.0.0, reference plugins v1.9.0; subnet %s; slices %s"
                + " rendered into host-local's rangeStart/rangeEnd by hand; whereabouts with"
                + " `range: %s` and its defaults (overlapping-range reservations on, debug log to"
                + " stderr, leader election on its Lease `whereabouts`), through"
                + " the nodes' path to the API server, authenticated by a ServiceAccount token"
                + " whose Role allows exactly what its ADD and DEL call. API requests are"
                + " kube-apiserver's `apiserver_request_total` around each batch, minus what"
                + " the control plane did alone (kubelets' Leases and Node status, the API"
                + " server's Lease) in idle windows between rounds, %.0f s in all. Every"
                + " attachment is DELed at the end of each mode; no reservation is left.%s",
            NODES,
            perNode,
            runs,
            batch,
            SUBNET,
            nodes.stream().map(n -> n.slice).toList(),
            SUBNET,
            backgroundSeconds,
            stderr));
    report.write();
  }

  private static void errors(StringBuilder out, String what, String operations, Figures f) {
    if (f.withErrors > 0) {
      out.append(
          String.format(
              Locale.ROOT,
              " %s %d %s logged an error: %s.",
              what,
              f.withErrors,
              operations,
              f.errorSamples.stream().map(e -> "`" + e + "`").toList()));
    }
  }

  private static String write(String key) {
    return ApiRequestCounts.isWrite(key) ? "write" : "read";
  }

  private static String fmt(double ms) {
    return String.format(Locale.ROOT, "%.0f", ms);
  }

  // ---- cleanup ----------------------------------------------------------------------------------

  /** DELs what is left, removes the namespaces, uplinks and segment, closes the cluster. Once. */
  private void cleanUp() {
    if (!cleaned.compareAndSet(false, true)) {
      return;
    }
    List<Attachment> left;
    synchronized (live) {
      left = new ArrayList<>(live);
      live.clear();
    }
    for (Attachment a : left) {
      try {
        a.node.cnitool("del", a);
      } catch (RuntimeException e) {
        System.err.println("cleanup: cnitool del " + a.netns + ": " + e.getMessage());
      }
      try {
        a.node.deleteNetns(a.netns);
      } catch (RuntimeException e) {
        System.err.println("cleanup: ip netns del " + a.netns + ": " + e.getMessage());
      }
    }
    for (BenchNode node : nodes) {
      node.removeUplink();
    }
    Commands.run("ip", "link", "del", segment);
    cluster.close();
  }

  /** One kubelet node of the bench: its uplink, its slice, its conflists and attachments. */
  static final class BenchNode {
    final KubeletNode kubelet;
    final int index;

    /** The node's slice of {@link #SUBNET}: a /24 well above whereabouts' lowest addresses. */
    final String slice;

    private final String prefix;
    private final String hostEnd = TestNames.unique("bup");

    BenchNode(KubeletNode kubelet, int index) {
      this.kubelet = kubelet;
      this.index = index;
      this.prefix = "10.235." + (200 + index);
      this.slice = prefix + ".0/24";
    }

    /** A veth whose node end, inside the node, is {@link #UPLINK}, the other end on segment. */
    void uplink(String segment) {
      String nodeEnd = TestNames.unique("bupn");
      Commands.run("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", nodeEnd)
          .orThrow("ip link add " + hostEnd);
      Commands.run("ip", "link", "set", hostEnd, "master", segment, "up")
          .orThrow("ip link set " + hostEnd + " master " + segment);
      Commands.run("ip", "link", "set", nodeEnd, "netns", kubelet.networkNamespace())
          .orThrow("ip link set " + nodeEnd + " netns");
      String ns = kubelet.networkNamespace();
      Commands.run("ip", "-n", ns, "link", "set", nodeEnd, "name", UPLINK).orThrow("rename");
      Commands.run("ip", "-n", ns, "link", "set", UPLINK, "up").orThrow("ip link set up");
    }

    void removeUplink() {
      if (Commands.run("ip", "link", "show", hostEnd).ok()) {
        Commands.run("ip", "link", "del", hostEnd);
      }
    }

    /**
     * The two conflists, whereabouts' flat file and its kubeconfig (the token, the API server on
     * the nodes' bridge), in the node's /etc.
     */
    void writeConfiguration(LocalControlPlane cp, String token, String apiServerUrl) {
      String slices =
          """
          {"cniVersion": "1.0.0", "name": "%s", "plugins": [
            {"type": "macvlan", "master": "%s", "mode": "bridge",
             "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s",
               "rangeStart": "%s.1", "rangeEnd": "%s.254"}]]}}]}
          """
              .formatted(Ipam.SLICES.network, UPLINK, SUBNET, prefix, prefix);
      String whereabouts =
          """
          {"cniVersion": "1.0.0", "name": "%s", "plugins": [
            {"type": "macvlan", "master": "%s", "mode": "bridge",
             "ipam": {"type": "whereabouts", "range": "%s"}}]}
          """
              .formatted(Ipam.WHEREABOUTS.network, UPLINK, SUBNET);
      String flat =
          """
          {"datastore": "kubernetes",
           "kubernetes": {"kubeconfig": "%s/whereabouts.kubeconfig"}}
          """
              .formatted(WHEREABOUTS_DIR);
      try {
        Path conf = Files.createDirectories(kubelet.hostPath(CONF_DIR));
        Files.writeString(conf.resolve("50-" + Ipam.SLICES.network + ".conflist"), slices);
        Files.writeString(
            conf.resolve("50-" + Ipam.WHEREABOUTS.network + ".conflist"), whereabouts);
        Path wa = Files.createDirectories(kubelet.hostPath(WHEREABOUTS_DIR));
        Files.writeString(wa.resolve("whereabouts.conf"), flat);
        // No namespace in its context: whereabouts then keeps its objects in kube-system.
        cp.writeKubeconfigForToken(token, apiServerUrl, wa.resolve("whereabouts.kubeconfig"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** A new network namespace inside the node, for one pod of {@code ipam}. */
    Attachment newAttachment(Ipam ipam) {
      String netns = TestNames.unique("ipam");
      kubelet.exec("ip", "netns", "add", netns).orThrow("ip netns add " + netns + " in node");
      return new Attachment(this, ipam, netns, "pod-" + netns);
    }

    void deleteNetns(String netns) {
      kubelet.exec("ip", "netns", "del", netns);
    }

    /** {@code cnitool <verb>} of the attachment's network, inside the node. */
    CommandResult cnitool(String verb, Attachment a) {
      return kubelet.exec(
          "env",
          "CNI_PATH=" + ToolPaths.pluginDir() + ":" + ToolPaths.whereabouts().getParent(),
          "NETCONFPATH=" + CONF_DIR,
          "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=" + POD_NAMESPACE + ";K8S_POD_NAME=" + a.pod,
          ToolPaths.cnitool().toString(),
          verb,
          a.ipam.network,
          "/run/netns/" + a.netns);
    }

    /**
     * The ADD's address is in the node's slice (host-local) or below every slice (whereabouts,
     * which hands out the subnet's lowest free addresses), and no live attachment on the segment
     * has it already.
     */
    void checkAddress(Attachment a, String result) {
      Matcher m = ADDRESS.matcher(result);
      if (!m.find()) {
        throw new IllegalStateException("no address in the ADD result: " + result);
      }
      String address = m.group(1);
      String[] octets = address.split("\\.");
      int third = Integer.parseInt(octets[2]);
      boolean inRange =
          address.startsWith("10.235.")
              && (a.ipam == Ipam.SLICES ? third == 200 + index : third < 200);
      if (!inRange) {
        throw new IllegalStateException(a.ipam + " gave " + address + " on " + kubelet.name());
      }
      if (LIVE_ADDRESSES.putIfAbsent(address, a.ipam) != null) {
        throw new IllegalStateException(address + " was handed out twice");
      }
    }

    /** host-local holds no reservation of the slices network on this node. */
    void assertNoHostLocalReservation() {
      Path store = kubelet.cniStateDir().resolve("networks").resolve(Ipam.SLICES.network);
      if (!Files.isDirectory(store)) {
        return;
      }
      try (var files = Files.list(store)) {
        List<String> left =
            files
                .map(p -> p.getFileName().toString())
                .filter(n -> Character.isDigit(n.charAt(0)))
                .toList();
        if (!left.isEmpty()) {
          throw new IllegalStateException("host-local kept " + left + " on " + kubelet.name());
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The live attachments' addresses on the segment, over both nodes and IPAMs. */
  private static final Map<String, Ipam> LIVE_ADDRESSES =
      new java.util.concurrent.ConcurrentHashMap<>();
}
