package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42.3: an installer that takes the directory over (a reproduction of Cilium's {@code
 * cni.exclusive} rename, {@link ExclusiveOwner}) is not fought: the agent restores its file a
 * bounded number of times, then reports the network Contested with the name the file was renamed
 * to, a Warning Event and the metric the alert reads, stops restoring, and resumes at once when the
 * file is given back.
 *
 * <p>Issue 53.4: the agent watches every directory it has a file in, not only the runtime's while a
 * chain is declared onto another product's file. With the chart's resync (60 s), its own file
 * changed or removed in the runtime's directory or in Multus's is put back by the watch, long
 * before the next resync could, and the rename is recognised as a contest within seconds instead of
 * three resyncs. The figures are printed ({@code event=directory-watch-restore}), not asserted; the
 * bound asserted is the resync period, which only the watch can beat.
 */
class ContestedFileIT {
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  /** The chart's {@code --resync-seconds}, for the test of the directory watch. */
  private static final String RESYNC_SECONDS = "60";

  /** Less than the time to the next resync from any moment of that test. */
  private static final Duration BEFORE_THE_RESYNC = Duration.ofSeconds(30);

  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private ExclusiveOwner cilium;

  @BeforeEach
  void setUp() throws IOException {
    cniNodes = new CniNodes(LocalControlPlane.shared());
    node = new SimulatedNode("contested", ToolPaths.pluginDir());
  }

  @AfterEach
  void tearDown() throws Exception {
    if (cilium != null) {
      cilium.close();
    }
    if (agent != null) {
      agent.close();
    }
    cniNodes.delete(node.name);
    node.close();
  }

  @Test
  void aFileRenamedAwayAfterEachRestoreIsReportedContestedAndNotFought() throws Exception {
    NodeNetwork net = CniNodes.network("secondary", 50, 33, "1.0.0");
    cniNodes.put(node.name, List.of(net));
    agent =
        AgentProcess.start(
            node.name, node.paths, cniNodes.controlPlane.kubeconfigFile(), node.log());
    Path file = node.conflist(net);
    Path backup = file.resolveSibling(net.getFileName() + ".cilium_bak");
    await().atMost(CONVERGE).until(() -> Files.exists(file));

    cilium = new ExclusiveOwner(node.paths.confDir(), "05-cilium.conflist");
    NodeNetworkStatus contested = awaitState(net, NetworkState.Contested);
    assertThat(contested.getMessage())
        .contains("renamed to " + backup.getFileName())
        .contains("cni.exclusive=false");
    int restores = restores();
    assertThat(restores).as("restores before the agent stopped").isEqualTo(3);

    // No more restores however many passes (every 2 s here) and events go by.
    agent.awaitOkPasses(5);
    assertThat(restores()).isEqualTo(restores);
    assertThat(Files.exists(file)).isFalse();
    // The file as first written, then after each restore.
    assertThat(cilium.renames.get()).isEqualTo(restores + 1);
    assertThat(agent.scrape()).contains("cni_agent_networks{state=\"Contested\"} 1.0");
    await().atMost(CONVERGE).until(() -> contestedEvents().size() == 1);
    assertThat(contestedEvents().get(0).getMessage()).startsWith("secondary: ");

    // The other party stops and gives the file back: the agent takes it as its own at once.
    cilium.close();
    cilium = null;
    Files.move(backup, file);
    awaitState(net, NetworkState.Applied);
    agent.awaitOkPasses(2);
    assertThat(restores()).isEqualTo(restores);
    assertThat(agent.scrape()).contains("cni_agent_networks{state=\"Contested\"} 0.0");
  }

  private NodeNetworkStatus awaitState(NodeNetwork net, NetworkState state) {
    return await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(
            () -> cniNodes.get(node.name).getStatus().network(net.getName()).orElseThrow(),
            s -> s.getState() == state);
  }

  private int restores() throws IOException {
    return Collections.frequency(agent.conflistWrites(), "RESTORE_REMOVED");
  }

  private List<Event> contestedEvents() {
    CniNode cr = cniNodes.get(node.name);
    return cniNodes.client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "CniNode".equals(e.getInvolvedObject().getKind()))
        .filter(e -> node.name.equals(e.getInvolvedObject().getName()))
        .filter(e -> cr.getMetadata().getUid().equals(e.getInvolvedObject().getUid()))
        .filter(e -> "FileContested".equals(e.getReason()))
        .toList();
  }

  @Test
  void theAgentsOwnFilesArePutBackByTheWatchAndATakeoverIsContestedWithinSeconds()
      throws Exception {
    NodeNetwork own = CniNodes.network("own", 50, 61, "1.0.0");
    NodeNetwork lan = CniNodes.network("lan", 50, 62, "1.0.0").setDirectory(ConfigDirectory.Multus);
    cniNodes.put(node.name, List.of(own, lan));
    agent = start();
    Path ownFile = node.conflist(own);
    Path lanFile = node.conflist(lan);
    await("both files written")
        .atMost(BEFORE_THE_RESYNC)
        .until(() -> holds(ownFile, own) && holds(lanFile, lan));

    restored("changed", ownFile, own, () -> Files.writeString(ownFile, "{\"edited\":true}"));
    restored("removed", ownFile, own, () -> Files.delete(ownFile));
    restored("changed-multus", lanFile, lan, () -> Files.writeString(lanFile, "{}"));

    long t0 = System.nanoTime();
    cilium = new ExclusiveOwner(node.paths.confDir(), "05-cilium.conflist");
    await("Contested before the next resync")
        .atMost(BEFORE_THE_RESYNC)
        .ignoreExceptions()
        .until(
            () ->
                cniNodes.get(node.name).getStatus().network(own.getName()).orElseThrow().getState()
                    == NetworkState.Contested);
    System.out.printf(
        "event=directory-watch-contested ms=%d renames=%d%n",
        (System.nanoTime() - t0) / 1_000_000, cilium.renames.get());
  }

  private AgentProcess start() throws IOException {
    return AgentProcess.start(
        node.name,
        node.paths,
        cniNodes.controlPlane.kubeconfigFile(),
        node.log(),
        "--resync-seconds",
        RESYNC_SECONDS);
  }

  /** Does {@code change} to the agent's {@code file}, and waits for the watch to put it back. */
  private void restored(String what, Path file, NodeNetwork network, Change change)
      throws Exception {
    long t0 = System.nanoTime();
    change.run();
    await(network.getName() + "'s file " + what + ", put back before the next resync")
        .atMost(BEFORE_THE_RESYNC)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> holds(file, network));
    System.out.printf(
        "event=directory-watch-restore change=%s ms=%d%n",
        what, (System.nanoTime() - t0) / 1_000_000);
  }

  private static boolean holds(Path file, NodeNetwork network) throws IOException {
    return Files.exists(file) && Files.readString(file).equals(network.getContent());
  }

  @FunctionalInterface
  private interface Change {
    void run() throws IOException;
  }
}
