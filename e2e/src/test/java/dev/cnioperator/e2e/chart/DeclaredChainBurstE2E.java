package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.OlderChainPod;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.crio.CrioRelease;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A chain declared onto a flannel-style primary with {@code spec.appendAs: DropIn}, on one kubelet
 * node of the runtime release a subclass names, the product from {@code helm install}; then a burst
 * of the primary's rewrites while pods start.
 *
 * <p>On containerd 2.1 and later (libcni 1.3) the agent writes the declared entries as drop-in
 * files, {@code /etc/cni/net.d/cbr0/<NN-name>.<ii>.conf} (the network's file name in the CniNode
 * spec, {@code 50-cbr0.conflist}, without {@code .conflist}), records them in {@code drop-ins.json}
 * and makes the runtime reload, and never touches the primary's file: it is byte for byte what the
 * primary wrote at every 20 ms sample, from before the chain is declared until after it is deleted,
 * and the primary's rewrites leave nothing to put back, so every pod gets the chain. On containerd
 * 1.7 (libcni 1.1, no drop-ins) the entries are held in place and the CniNode status says why; each
 * rewrite strips them until the agent re-appends (the same on CRI-O 1.34, held in place on purpose:
 * it loads drop-ins but deletes pods with libcni's cached file, which has none), and after three
 * re-appends within ten minutes the file is Contested, not fought: pods added meanwhile run the
 * primary's chain alone, which the status says (the Contested message; {@code
 * attachments.olderChainPods} once the network is Applied again, as a network not Applied gets no
 * CHECK). The burst's figures are printed (docs/benchmarks.md, section 10); on 1.7 they are the
 * product's designed bound, not asserted as counts. Deleting the network takes the drop-ins and
 * their directory out (2.x) or leaves the file as the primary wrote it (1.7), and a pod started
 * then runs the primary's chain alone.
 *
 * <p>The burst: a thread rewrites the primary's file with its original content ({@link
 * Files#writeString}: truncate, then write, as {@code cp} does; without any entry appended in
 * place, as a primary that renders its file afresh) every 250 ms for about 20 s, while {@value
 * #PODS} pods pinned to the node are created one after another, spread over it, each awaited
 * running.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class DeclaredChainBurstE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final String CHAIN = "pod-shaping";
  private static final String TARGET = "cbr0";
  private static final String FILE = ForeignPrimary.FILE;

  /** The agent's state dir on the test kit's nodes ({@link ChartRelease#onNodes}). */
  private static final String STATE_DIR = "/opt/cni-operator/state";

  private static final Duration BURST = Duration.ofSeconds(20);
  private static final Duration REWRITE_EVERY = Duration.ofMillis(250);
  static final int PODS = 12;
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(20);
  private static final Duration STATUS_EVERY = Duration.ofMillis(500);

  /** How many pods attachments.olderChainPods names at most (the agent's AttachmentChecker). */
  private static final int OLDER_CHAIN_CAP = 10;

  private OneNodeProduct product;
  private LocalControlPlane cp;
  private KubeletNode node;
  private ClusterNetworks networks;
  private ForeignPrimary primary;

  /** The runtime's CRI name and version, e.g. {@code containerd-v1.7.35}, {@code cri-o-1.34.0}. */
  private String runtimeVersion;

  /** The network's own file name without {@code .conflist}: what its drop-ins are named after. */
  private String dropInBase;

  /** The primary's file, sampled from before the chain is declared until after it is deleted. */
  private FileSamples samples;

  private ScheduledExecutorService sampler;

  /** The runtime release the node runs. */
  abstract RuntimeRelease runtime();

  /** Whether that release loads libcni's drop-ins (2.1 and later), so DropIn is what it holds. */
  private boolean loadsDropIns() {
    return runtime() == ContainerdRelease.V2_X;
  }

  @BeforeAll
  void startCluster() {
    product = OneNodeProduct.install("chain-burst", runtime());
    cp = product.cp;
    node = product.node;
    networks = ClusterNetworks.on(cp);
    List<String> version =
        node.runtime().crictl("version").orThrow("crictl version").stdout().lines().toList();
    runtimeVersion =
        versionField(version, "RuntimeName") + "-" + versionField(version, "RuntimeVersion");
  }

  @AfterAll
  void stopCluster() throws InterruptedException {
    try {
      stopSampler();
    } finally {
      if (product != null) {
        product.close();
      }
    }
  }

  @Test
  @Order(1)
  void theDeclaredChainIsHeldAsTheNodesRuntimeAllowsAndAPodStartedAfterTheRolloutGetsIt()
      throws Exception {
    String podCidr = cp.client().nodes().withName(node.name()).get().getSpec().getPodCIDR();
    primary = ForeignPrimary.install(cp, product.release, podCidr);
    byte[] written = primaryBytes();
    await("the foreign primary's conflist on the node, as it wrote it")
        .atMost(SETTLE)
        .ignoreException(NoSuchFileException.class)
        .until(() -> Arrays.equals(readFile(), written));
    samples = new FileSamples(written);
    sampler = Executors.newSingleThreadScheduledExecutor();
    sampler.scheduleWithFixedDelay(
        () -> samples.sample(primaryFile()), 0, SAMPLE_EVERY.toMillis(), TimeUnit.MILLISECONDS);

    cp.kubectlWithInput(
            ForeignPrimary.chain(CHAIN, 1400, AppendPlacement.DropIn), "apply", "-f", "-")
        .orThrow("kubectl apply of the declared chain with appendAs: DropIn");
    networks.waitRolledOut(CHAIN);
    NodeNetwork entry =
        networks.cniNode(node.name()).orElseThrow().getSpec().network(CHAIN).orElseThrow();
    assertThat(entry.getAppendAs())
        .as("the CniNode spec's appendAs: the operator's copy of the CniNetwork's spec.appendAs")
        .isEqualTo(AppendPlacement.DropIn);
    dropInBase = entry.getFileName().replaceFirst("\\.conflist$", "");
    List<String> dropIns = List.of(dropInBase + ".00.conf", dropInBase + ".01.conf");

    if (loadsDropIns()) {
      String expected =
          "plugins added to network "
              + TARGET
              + " ("
              + FILE
              + ") as drop-ins "
              + TARGET
              + "/{"
              + String.join(",", dropIns)
              + "}";
      awaitMessage(m -> assertThat(m).startsWith(expected));
      assertThat(readFile())
          .as("the primary's file, byte for byte as it wrote it")
          .isEqualTo(written);
      Path dir = dropInDir();
      assertThat(listed(dir)).as("the drop-ins in %s", dir).containsExactlyElementsOf(dropIns);
      JsonNode tuning = JSON.readTree(dir.resolve(dropIns.get(0)).toFile());
      JsonNode bandwidth = JSON.readTree(dir.resolve(dropIns.get(1)).toFile());
      assertThat(tuning.path("type").asText()).isEqualTo("tuning");
      assertThat(tuning.path("mtu").asInt()).isEqualTo(1400);
      assertThat(bandwidth.path("type").asText()).isEqualTo("bandwidth");
      JsonNode recorded = JSON.readTree(node.hostPath(STATE_DIR + "/drop-ins.json").toFile());
      assertThat(recorded.at("/networks/" + CHAIN + "/target").asText()).isEqualTo(TARGET);
      assertThat(fieldNames(recorded.at("/networks/" + CHAIN + "/files")))
          .as("drop-ins.json")
          .containsExactlyElementsOf(dropIns);
      assertThat(node.cniConfDir().resolve(".cni-operator-reload"))
          .as("the reload marker, written and removed")
          .doesNotExist();
      assertThat(agentLog().filter(l -> l.contains("event=runtime-reload-caused")).count())
          .as("reloads the agent caused (the marker written and removed)")
          .isPositive();
    } else {
      awaitMessage(
          m ->
              assertThat(m)
                  .startsWith("plugins appended to network " + TARGET + " in " + FILE)
                  .contains("held in place, not as drop-ins: the node's runtime, ")
                  .contains(heldInPlaceBecause()));
      assertThat(ForeignPrimary.types(node))
          .containsExactly("bridge", "portmap", "tuning", "bandwidth");
      assertThat(dropInDir()).doesNotExist();
    }
    printStatus("declared-chain-placed");

    Pod first = runPausePod("first");
    assertThat(ForeignPrimary.missingChain(node, first))
        .as("the chain of a pod started right after the rollout")
        .isEmpty();
  }

  @Test
  @Order(2)
  void aBurstOfThePrimarysRewritesWhilePodsStart() throws Exception {
    assumeTrue(dropInBase != null, "the chain was not placed (the first test failed)");
    Path file = primaryFile();
    FileSamples.Counts before = samples.counts();
    int appendsBefore = agentLogCount("event=chain-appended", "reapplied=true");
    long reloadsBefore = agentLog().filter(l -> l.contains("event=runtime-reload-caused")).count();
    ScheduledExecutorService rewriter = Executors.newSingleThreadScheduledExecutor();
    ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
    AtomicInteger rewrites = new AtomicInteger();
    AtomicLong firstContestedMs = new AtomicLong(-1);
    Set<String> statesSeen = new ConcurrentSkipListSet<>();
    List<Pod> pods = new ArrayList<>();
    List<Long> runMs = new ArrayList<>();
    long burstStart = System.nanoTime();
    long burstMs;
    try {
      rewriter.scheduleAtFixedRate(
          () -> {
            try {
              Files.writeString(file, primary.conflist);
              rewrites.incrementAndGet();
            } catch (IOException e) {
              System.out.printf("event=declared-chain-burst-rewrite-failed error=%s%n", e);
            }
          },
          0,
          REWRITE_EVERY.toMillis(),
          TimeUnit.MILLISECONDS);
      watcher.scheduleWithFixedDelay(
          () -> {
            try {
              networks
                  .nodeStatus(node.name(), CHAIN)
                  .map(NodeNetworkStatus::getState)
                  .ifPresent(
                      s -> {
                        statesSeen.add(s.toString());
                        if (s == NetworkState.Contested) {
                          firstContestedMs.compareAndSet(-1, millisSince(burstStart));
                        }
                      });
            } catch (RuntimeException e) {
              // An API call that failed: the next sample reads it.
            }
          },
          0,
          STATUS_EVERY.toMillis(),
          TimeUnit.MILLISECONDS);
      long spacing = BURST.toNanos() / PODS;
      for (int i = 0; i < PODS; i++) {
        long due = burstStart + i * spacing;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000);
        }
        long created = System.nanoTime();
        pods.add(runPausePod("burst"));
        runMs.add(millisSince(created));
      }
      long left = BURST.toNanos() - (System.nanoTime() - burstStart);
      if (left > 0) {
        Thread.sleep(left / 1_000_000);
      }
    } finally {
      // The rewrite under way ends, so the file is left whole, as the primary wrote it.
      rewriter.shutdown();
      if (!rewriter.awaitTermination(10, TimeUnit.SECONDS)) {
        rewriter.shutdownNow();
      }
      burstMs = millisSince(burstStart);
      watcher.shutdownNow();
      watcher.awaitTermination(10, TimeUnit.SECONDS);
    }
    FileSamples.Counts during = samples.counts().minus(before);

    Map<String, String> missing = new LinkedHashMap<>();
    for (Pod pod : pods) {
      ForeignPrimary.missingChain(node, pod).ifPresent(m -> missing.put(name(pod), m));
    }
    int reappends = agentLogCount("event=chain-appended", "reapplied=true") - appendsBefore;
    long reloads =
        agentLog().filter(l -> l.contains("event=runtime-reload-caused")).count() - reloadsBefore;
    long sandboxFailures =
        cp.client().v1().events().inNamespace(product.apps).list().getItems().stream()
            .filter(e -> "FailedCreatePodSandBox".equals(e.getReason()))
            .mapToLong(e -> e.getCount() == null ? 1 : e.getCount())
            .sum();
    List<Long> sorted = runMs.stream().sorted().toList();
    NodeNetworkStatus after = networks.nodeStatus(node.name(), CHAIN).orElseThrow();
    System.out.printf(
        "event=declared-chain-burst runtime=%s placement=%s rewrites=%d pods=%d"
            + " without-chain=%d contested=%s reappends=%d reloads_caused=%d burst_ms=%d"
            + " pod_running_ms_median=%d pod_running_ms_max=%d sandbox_failures=%d file_samples=%d"
            + " file_samples_with_chain=%d file_samples_as_written=%d file_samples_mid_write=%d"
            + " file_samples_other=%d states_seen=%s%n",
        runtimeVersion,
        loadsDropIns() ? "DropIn" : "InPlace",
        rewrites.get(),
        pods.size(),
        missing.size(),
        firstContestedMs.get() < 0 ? "no" : "after_" + firstContestedMs.get() + "ms",
        reappends,
        reloads,
        burstMs,
        sorted.get(sorted.size() / 2),
        sorted.get(sorted.size() - 1),
        sandboxFailures,
        during.total(),
        during.withChain(),
        during.asWritten(),
        during.midWrite(),
        during.other(),
        statesSeen);
    missing.values().forEach(m -> System.out.printf("event=declared-chain-burst-missing %s%n", m));
    printChainEvents();
    printStatus("declared-chain-burst-after");

    if (loadsDropIns()) {
      assertThat(missing).as("pods started during the burst without the chain").isEmpty();
      assertThat(readFile())
          .as("the primary's file, byte for byte as it wrote it")
          .isEqualTo(primaryBytes());
      assertThat(samples.counts().withChain() + samples.counts().other())
          .as("samples of the primary's file holding anything but what it wrote: %s", samples)
          .isZero();
      assertThat(reappends).as("re-appends").isZero();
      assertThat(after.getState())
          .as("after the burst: %s", after.getMessage())
          .isEqualTo(NetworkState.Applied);
      assertThat(listed(dropInDir()))
          .containsExactly(dropInBase + ".00.conf", dropInBase + ".01.conf");
      return;
    }
    // In place: what the status says is the designed truth; the count is a figure.
    assertThat(after.getState())
        .as("after the burst: %s", after.getMessage())
        .isIn(NetworkState.Contested, NetworkState.Applied);
    if (after.getState() == NetworkState.Contested) {
      assertThat(after.getMessage())
          .contains(FILE + " (network " + TARGET + ") was rewritten without this network's entries")
          .contains("pods added meanwhile run " + TARGET + " without these plugins");
    }
    if (!missing.isEmpty() && after.getState() == NetworkState.Applied) {
      // Put back: the CHECK loop (every 5 s) names the pods added while the file lacked them.
      // While Contested the message above says so instead: a network not Applied gets no CHECK
      // (NodeAgent keeps the loops of Applied networks only), so its attachments stay as the last
      // pass before the contest left them.
      await("the pods without the chain named in attachments.olderChainPods")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                AttachmentSummary a =
                    networks.nodeStatus(node.name(), CHAIN).orElseThrow().getAttachments();
                assertThat(a).isNotNull();
                assertThat(a.getOlderChain()).as("olderChain").isEqualTo(missing.size());
                List<OlderChainPod> named = a.getOlderChainPods();
                assertThat(named)
                    .hasSize(Math.min(OLDER_CHAIN_CAP, missing.size()))
                    .allSatisfy(
                        p -> {
                          assertThat(p.getNamespace()).isEqualTo(product.apps);
                          assertThat(missing).containsKey(p.getPod());
                          assertThat(p.getWhy()).contains("added without tuning, bandwidth");
                        });
              });
      printStatus("declared-chain-burst-older-chain");
    }
  }

  @Test
  @Order(3)
  void deletingTheNetworkLeavesThePrimarysFileAsItWroteIt() throws Exception {
    assumeTrue(dropInBase != null, "the chain was not placed (the first test failed)");
    networks.delete(CHAIN);
    if (loadsDropIns()) {
      await("the drop-ins and their directory gone")
          .atMost(SETTLE)
          .untilAsserted(() -> assertThat(dropInDir()).doesNotExist());
      Path recorded = node.hostPath(STATE_DIR + "/drop-ins.json");
      if (Files.exists(recorded)) {
        assertThat(JSON.readTree(recorded.toFile()).at("/networks/" + CHAIN).isMissingNode())
            .as("drop-ins.json without %s: %s", CHAIN, Files.readString(recorded))
            .isTrue();
      }
      // A pass or two more, then nothing of the agent's may have reached the file.
      Thread.sleep(2_000);
      stopSampler();
      assertThat(readFile()).isEqualTo(primaryBytes());
      assertThat(samples.counts().withChain() + samples.counts().other())
          .as("samples of the primary's file holding anything but what it wrote: %s", samples)
          .isZero();
    } else {
      await("the file as its product wrote it")
          .atMost(SETTLE)
          .untilAsserted(
              () ->
                  assertThat(JSON.readTree(readFile())).isEqualTo(JSON.readTree(primary.conflist)));
      stopSampler();
    }
    System.out.printf(
        "event=declared-chain-burst-deleted runtime=%s file_byte_for_byte=%s %s%n",
        runtimeVersion, Arrays.equals(readFile(), primaryBytes()), samples);
    printChainEvents();
    // The runtime runs the primary's chain alone again: a pod started now gets neither plugin.
    Pod after = runPausePod("after");
    assertThat(ForeignPrimary.missingChain(node, after))
        .as("the chain of a pod started after the deletion")
        .hasValueSatisfying(m -> assertThat(m).contains("without tuning's MTU 1400"));
  }

  /**
   * The agent's chain events for the network so far, each contest told once with how often it was
   * logged (the agent logs it at each pass while the pause lasts).
   */
  private void printChainEvents() {
    List<String> lines =
        agentLog()
            .filter(l -> l.contains("event=chain-") && l.contains("network=" + CHAIN))
            .toList();
    long contested = lines.stream().filter(l -> l.contains("event=chain-contested")).count();
    List<String> shown = new ArrayList<>();
    boolean contestShown = false;
    for (String l : lines) {
      if (l.contains("event=chain-contested")) {
        if (contestShown) {
          continue;
        }
        contestShown = true;
      }
      shown.add(l);
    }
    System.out.printf(
        "event=declared-chain-burst-agent-log network=%s chain_events=%d contested_lines=%d%n%s%n",
        CHAIN, lines.size(), contested, String.join("\n", shown));
  }

  private void stopSampler() throws InterruptedException {
    if (sampler != null) {
      sampler.shutdownNow();
      sampler.awaitTermination(10, TimeUnit.SECONDS);
      sampler = null;
    }
  }

  private void awaitMessage(java.util.function.Consumer<String> requirement) {
    await("the CniNode status of " + CHAIN)
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              NodeNetworkStatus s = networks.nodeStatus(node.name(), CHAIN).orElseThrow();
              assertThat(s.getState()).isEqualTo(NetworkState.Applied);
              requirement.accept(s.getMessage());
            });
  }

  /** What a user reads of the network on the node: its state, message and attachments. */
  private void printStatus(String event) {
    String jsonpath =
        "{range .status.networks[?(@.name==\""
            + CHAIN
            + "\")]}state={.state}{\"\\n\"}message={.message}{\"\\n\"}"
            + "attachments={.attachments}{\"\\n\"}lastCheckTime={.lastCheckTime}{\"\\n\"}{end}";
    System.out.printf(
        "event=%s runtime=%s%n$ kubectl get cninode %s -o jsonpath=...%n%s%n",
        event,
        runtimeVersion,
        node.name(),
        cp.kubectl("get", "cninode", node.name(), "-o", "jsonpath=" + jsonpath).stdout());
  }

  /** What the status says of the node's runtime when it holds the chain in place. */
  private List<String> heldInPlaceBecause() {
    return runtime() instanceof CrioRelease
        ? List.of(
            "cri-o 1.34.",
            "deletes pods with libcni's cached copy of the network's file, which holds no drop-ins")
        : List.of(
            "containerd ", "1.7.", "carries a libcni older than 1.3, which loads no drop-ins");
  }

  /** The value of {@code field} in crictl version's lines, "unknown" when there is none. */
  private static String versionField(List<String> lines, String field) {
    return lines.stream()
        .filter(l -> l.startsWith(field + ":"))
        .map(l -> l.substring(field.length() + 1).strip())
        .findFirst()
        .orElse("unknown");
  }

  private Pod runPausePod(String prefix) {
    String name = TestNames.unique(prefix);
    cp.client()
        .pods()
        .inNamespace(product.apps)
        .resource(NodePods.pinnedPausePod(name, node))
        .create();
    return await("pod " + name + " running")
        .atMost(SETTLE)
        .until(
            () -> cp.client().pods().inNamespace(product.apps).withName(name).get(),
            NodePods::running);
  }

  /**
   * How many lines of the agent's log are of {@code event} for this network and say {@code and}.
   */
  private int agentLogCount(String event, String and) {
    return (int)
        agentLog()
            .filter(l -> l.contains(event) && l.contains("network=" + CHAIN) && l.contains(and))
            .count();
  }

  private Stream<String> agentLog() {
    return product.release.log("agent").lines();
  }

  private Path primaryFile() {
    return node.cniConfDir().resolve(FILE);
  }

  private byte[] primaryBytes() {
    return primary.conflist.getBytes(StandardCharsets.UTF_8);
  }

  private byte[] readFile() throws IOException {
    return Files.readAllBytes(primaryFile());
  }

  private Path dropInDir() {
    return node.cniConfDir().resolve(TARGET);
  }

  private static List<String> listed(Path dir) throws IOException {
    try (var files = Files.list(dir)) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  private static List<String> fieldNames(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static String name(Pod pod) {
    return pod.getMetadata().getName();
  }

  private static long millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1_000_000;
  }

  /**
   * Samples of the primary's file: as the primary wrote it; part of that (its own write caught
   * between truncate and write); with the declared entries in it (the agent's in-place append); or
   * anything else (missing, or another content).
   */
  private static final class FileSamples {
    private final byte[] written;
    private final AtomicInteger asWritten = new AtomicInteger();
    private final AtomicInteger midWrite = new AtomicInteger();
    private final AtomicInteger withChain = new AtomicInteger();
    private final AtomicInteger other = new AtomicInteger();
    private final Set<String> otherSeen = new TreeSet<>();

    FileSamples(byte[] written) {
      this.written = written;
    }

    record Counts(int asWritten, int midWrite, int withChain, int other) {
      int total() {
        return asWritten + midWrite + withChain + other;
      }

      Counts minus(Counts o) {
        return new Counts(
            asWritten - o.asWritten,
            midWrite - o.midWrite,
            withChain - o.withChain,
            other - o.other);
      }
    }

    void sample(Path file) {
      byte[] now;
      try {
        now = Files.readAllBytes(file);
      } catch (NoSuchFileException e) {
        other("missing");
        return;
      } catch (IOException e) {
        other("unreadable: " + e);
        return;
      }
      if (Arrays.equals(now, written)) {
        asWritten.incrementAndGet();
      } else if (now.length < written.length
          && Arrays.equals(now, Arrays.copyOf(written, now.length))) {
        midWrite.incrementAndGet();
      } else if (holdsChain(now)) {
        withChain.incrementAndGet();
      } else {
        other(new String(now, StandardCharsets.UTF_8));
      }
    }

    private static boolean holdsChain(byte[] content) {
      try {
        JsonNode plugins = JSON.readTree(content).path("plugins");
        for (JsonNode p : plugins) {
          if (p.path("type").asText().equals("tuning")) {
            return true;
          }
        }
      } catch (IOException notWhole) {
        return false;
      }
      return false;
    }

    private synchronized void other(String what) {
      other.incrementAndGet();
      if (otherSeen.size() < 5) {
        otherSeen.add(what);
      }
    }

    Counts counts() {
      return new Counts(asWritten.get(), midWrite.get(), withChain.get(), other.get());
    }

    @Override
    public synchronized String toString() {
      Counts c = counts();
      return "file_samples=%d as_written=%d mid_write=%d with_chain=%d other=%d%s"
          .formatted(
              c.total(),
              c.asWritten(),
              c.midWrite(),
              c.withChain(),
              c.other(),
              otherSeen.isEmpty()
                  ? ""
                  : " other_seen="
                      + otherSeen.stream().collect(Collectors.joining(" | ", "[", "]")));
    }
  }
}
