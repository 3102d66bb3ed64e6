package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42.2: a chain declared onto a network the product does not own. The foreign primary is
 * installed the way flannel and Calico ship theirs: an init container copies its conflist (from a
 * ConfigMap) onto the node with {@code cp}, truncating and writing the file in place, on every
 * start. The agent appends the declared tuning and bandwidth entries to that file, found by the
 * network's CNI name; puts them back after each copy, also one made while the agent was down; never
 * edits the file while it is half-written; and takes them out when the declaration goes. Pods added
 * by libcni's cnitool from the file get both plugins: the MTU tuning set, the bandwidth qdisc on
 * the host's end of their veth.
 */
class DeclaredChainIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static final String FILE = "10-flannel.conflist";

  /**
   * No resync within the test: only the watch of the conf dir (or a CniNode change) starts a pass,
   * so a chain put back after a rewrite was put back by the watch.
   */
  private static final String[] NO_RESYNC = {"--resync-seconds", "3600"};

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private String foreign;
  private final List<Runnable> undo = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("chain", ToolPaths.pluginDir());
    // The foreign product's own plugins, as its installer puts them on the node.
    for (String plugin : List.of("ptp", "host-local")) {
      Files.copy(
          ToolPaths.pluginDir().resolve(plugin),
          node.paths.binDir().resolve(plugin),
          StandardCopyOption.COPY_ATTRIBUTES);
    }
    foreign =
        "{\n  \"name\": \"cbr0\",\n  \"cniVersion\": \"1.0.0\",\n  \"plugins\": [\n    {\"type\":"
            + " \"ptp\", \"ipam\": {\"type\": \"host-local\", \"subnet\": \"10.200.71.0/24\","
            + " \"dataDir\": \""
            + node.root.resolve("var/lib/cni/networks")
            + "\"}}\n  ]\n}\n";
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = undo.size() - 1; i >= 0; i--) {
      undo.get(i).run();
    }
    if (agent != null) {
      agent.close();
    }
    cniNodes.delete(node.name);
    node.close();
  }

  /** What the foreign primary's init container does on each start: {@code cp} over the file. */
  private void foreignPrimaryStarts() throws IOException {
    Files.writeString(node.conflist(FILE), foreign);
  }

  private static NodeNetwork declared() {
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":["
            + "{\"type\":\"tuning\",\"mtu\":1400},"
            + "{\"type\":\"bandwidth\",\"ingressRate\":8000000,\"ingressBurst\":65536}]}";
    return CniNodes.network("shaping", 50, content).setAppendTo("cbr0");
  }

  @Test
  void aChainDeclaredOntoAForeignPrimaryIsHeldThroughItsRestartsAndTheAgentsAndThenTakenOut()
      throws Exception {
    foreignPrimaryStarts();
    cniNodes.put(node.name, List.of(declared()));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log(), NO_RESYNC);
    await().atMost(CONVERGE).until(() -> types().equals(List.of("ptp", "tuning", "bandwidth")));
    NodeNetworkStatus reported = awaitShaping(NetworkState.Applied);
    assertThat(reported.getMessage()).contains("appended to network cbr0 in " + FILE);
    assertThat(reported.getAppliedSha256()).isEqualTo(declared().getSha256());
    assertThat(JSON.readTree(node.conflist(FILE).toFile()).at("/plugins/0"))
        .as("the foreign plugin, untouched")
        .isEqualTo(JSON.readTree(foreign).at("/plugins/0"));
    assertChained(addPod("first"));

    // The foreign primary's DaemonSet restarts: its init container copies its file over ours.
    long started = System.nanoTime();
    foreignPrimaryStarts();
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> types().equals(List.of("ptp", "tuning", "bandwidth")));
    long backMillis = (System.nanoTime() - started) / 1_000_000;
    await().atMost(CONVERGE).until(() -> agent.log().contains("reapplied=true"));
    assertThat(agent.log())
        .as("woken by the directory, not the resync")
        .contains("event=confdir-watch-started");
    assertChained(addPod("after-restart"));

    // Half-written (cp truncates, then writes): never edited, said so; then complete, appended.
    String half = foreign.substring(0, foreign.length() / 2);
    Files.writeString(node.conflist(FILE), half);
    await()
        .atMost(CONVERGE)
        .until(() -> awaitShaping(NetworkState.Failed).getMessage().contains("not valid JSON"));
    // It looked (the status says why it waits) and did not write.
    assertThat(Files.readString(node.conflist(FILE))).isEqualTo(half);
    foreignPrimaryStarts();
    await().atMost(CONVERGE).until(() -> types().equals(List.of("ptp", "tuning", "bandwidth")));

    // The agent is down while the foreign primary restarts: back, it appends again.
    agent.close();
    agent = null;
    foreignPrimaryStarts();
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log(), NO_RESYNC);
    await().atMost(CONVERGE).until(() -> types().equals(List.of("ptp", "tuning", "bandwidth")));

    // The declaration goes: its entries come out, the foreign file is as its product wrote it.
    cniNodes.put(node.name, List.of());
    await().atMost(CONVERGE).until(() -> types().equals(List.of("ptp")));
    assertThat(JSON.readTree(node.conflist(FILE).toFile())).isEqualTo(JSON.readTree(foreign));
    System.out.printf("declared-chain back-after-foreign-rewrite-ms=%d%n", backMillis);
  }

  /**
   * Issue 53.4: a primary whose installer renders its file afresh on every change it sees in the
   * directory, dropping whatever others appended (a reproduction: {@link DirectoryReaction} writing
   * the primary's own content whenever the file differs from it). With the directory watch, the
   * agent and it would trade the file ten times a second, for ever; instead the agent re-appends a
   * bounded number of times, the same bound as for its own files, then reports the network
   * Contested, says why and until when, and leaves the file as the primary wrote it.
   */
  @Test
  void aPrimaryThatStripsForeignEntriesOnEveryChangeIsContestedNotFought() throws Exception {
    foreignPrimaryStarts();
    cniNodes.put(node.name, List.of(declared()));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log(), NO_RESYNC);
    await().atMost(CONVERGE).until(() -> types().equals(List.of("ptp", "tuning", "bandwidth")));

    AtomicInteger rewrites = new AtomicInteger();
    long started = System.nanoTime();
    DirectoryReaction primary =
        new DirectoryReaction(
            node.paths.confDir(),
            "stripping-primary",
            () -> {
              if (!foreign.equals(Files.readString(node.conflist(FILE)))) {
                foreignPrimaryStarts();
                rewrites.incrementAndGet();
              }
            });
    undo.add(
        () -> {
          try {
            primary.close();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
    NodeNetworkStatus contested = awaitShaping(NetworkState.Contested);
    long contestedMillis = (System.nanoTime() - started) / 1_000_000;
    assertThat(contested.getMessage())
        .contains(FILE + " (network cbr0) was rewritten without this network's entries")
        .contains("not appended again before");
    int reappends = reappends();
    assertThat(reappends).as("re-appends before the agent stopped").isEqualTo(3);

    // Nothing more is traded: the file stays as the primary wrote it, the agent appends no more.
    await("no exchange")
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(10))
        .until(() -> reappends() == reappends && types().equals(List.of("ptp")));
    // The primary stripped the file once when it started, then after each re-append.
    assertThat(rewrites.get()).isEqualTo(reappends + 1);
    assertThat(Files.readString(node.conflist(FILE))).isEqualTo(foreign);
    System.out.printf(
        "declared-chain contested-ms=%d reappends=%d primary-rewrites=%d%n",
        contestedMillis, reappends, rewrites.get());
  }

  private int reappends() throws IOException {
    return (int)
        agent.logged("event=chain-appended").stream()
            .filter(l -> l.contains("reapplied=true"))
            .count();
  }

  private List<String> types() throws IOException {
    List<String> types = new ArrayList<>();
    try {
      JSON.readTree(node.conflist(FILE).toFile())
          .get("plugins")
          .forEach(p -> types.add(p.get("type").asText()));
    } catch (IOException | RuntimeException half) {
      return List.of();
    }
    return types;
  }

  private NodeNetworkStatus awaitShaping(NetworkState state) {
    return await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(
            () -> cniNodes.get(node.name).getStatus().network("shaping").orElseThrow(),
            s -> s.getState() == state);
  }

  /** A pod added from the file by cnitool, as a runtime adds it; its result. */
  private Added addPod(String base) throws Exception {
    String name = TestNames.unique(base);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .withUid(UUID.randomUUID().toString())
            .endMetadata()
            .build();
    NetworkNamespace ns = NetworkNamespace.create(base);
    undo.add(ns::close);
    CommandResult added = cnitool("add", ns, pod).orThrow("cnitool add through the chain");
    undo.add(() -> cnitool("del", ns, pod));
    return new Added(ns, JSON.readTree(added.stdout()));
  }

  private record Added(NetworkNamespace ns, JsonNode result) {}

  private CommandResult cnitool(String verb, NetworkNamespace ns, Pod pod) {
    return Attachments.cnitool(verb, "cbr0", ns, pod, node.paths.confDir(), node.paths.binDir());
  }

  /** tuning set the pod's MTU; bandwidth put its token bucket on the host's end of the veth. */
  private static void assertChained(Added pod) {
    assertThat(pod.ns().exec("ip", "-o", "link", "show", "eth0")).contains("mtu 1400");
    String hostVeth = null;
    for (JsonNode i : pod.result().get("interfaces")) {
      if (!i.has("sandbox") || i.get("sandbox").asText().isEmpty()) {
        hostVeth = i.get("name").asText();
      }
    }
    assertThat(hostVeth).as("the host's end of the veth in %s", pod.result()).isNotNull();
    CommandResult tc =
        Commands.run(List.of("tc", "qdisc", "show", "dev", hostVeth), Map.of(), null, CONVERGE);
    assertThat(tc.orThrow("tc qdisc show").stdout()).contains("tbf");
  }
}
