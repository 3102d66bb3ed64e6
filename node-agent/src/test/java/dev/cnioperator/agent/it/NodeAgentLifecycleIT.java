package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.InstalledPlugin;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two simulated nodes, each with its own agent process and host directories, follow their CniNode
 * specs through create, change and removal; foreign files stay byte for byte.
 */
class NodeAgentLifecycleIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONVERGE = Duration.ofSeconds(30);

  private CniNodes cniNodes;
  private SimulatedNode a;
  private SimulatedNode b;
  private AgentProcess agentA;
  private AgentProcess agentB;

  @BeforeEach
  void setUp() throws IOException {
    LocalControlPlane cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    Path plugins = ToolPaths.pluginDir();
    a = new SimulatedNode("node-a", plugins);
    b = new SimulatedNode("node-b", plugins);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (AgentProcess p : new AgentProcess[] {agentA, agentB}) {
      if (p != null) {
        p.close();
      }
    }
    for (SimulatedNode n : new SimulatedNode[] {a, b}) {
      if (n != null) {
        cniNodes.delete(n.name);
        n.close();
      }
    }
  }

  @Test
  void networksAppearChangeAndDisappearOnTheRightNodeAndForeignFilesStayUntouched()
      throws Exception {
    // Foreign files, placed before the agents start.
    byte[] foreignConflist = "{\"cniVersion\":\"1.0.0\",\"name\":\"zz\",\"plugins\":[]}".getBytes();
    Files.write(a.conflist("99-foreign.conflist"), foreignConflist);
    byte[] foreignPortmap = Files.readAllBytes(ToolPaths.debianPluginDir().resolve("portmap"));
    Files.write(a.paths.binDir().resolve("portmap"), foreignPortmap);
    Map<String, String> foreignBefore =
        Map.of(
            "99-foreign.conflist", Sha256.hex(foreignConflist),
            "portmap", Sha256.hex(foreignPortmap));

    NodeNetwork n1 = CniNodes.network("n1", 50, 11, "1.0.0");
    NodeNetwork n2 = CniNodes.network("n2", 60, 12, "1.1.0");
    cniNodes.put(a.name, List.of(n1, n2));
    cniNodes.put(b.name, List.of(n1));
    agentA = AgentProcess.start(a.name, a.paths, cniNodes.controlPlane.kubeconfigFile(), a.log());
    agentB = AgentProcess.start(b.name, b.paths, cniNodes.controlPlane.kubeconfigFile(), b.log());

    awaitApplied(a, n1, n2);
    awaitApplied(b, n1);
    assertThat(b.conflist(n2.getFileName())).doesNotExist();
    assertThat(Files.readString(a.conflist(n1.getFileName()))).isEqualTo(n1.getContent());
    assertManifestAgreesWithDisk(a, n1, n2);
    assertManifestAgreesWithDisk(b, n1);
    // bridge and host-local came from the bundle; portmap stays the foreign one.
    assertThat(sha(a.paths.binDir().resolve("bridge")))
        .isEqualTo(sha(ToolPaths.pluginDir().resolve("bridge")));
    CniNode nodeA = cniNodes.get(a.name);
    assertThat(nodeA.getStatus().getDefaultNetwork()).isEqualTo("n1");
    InstalledPlugin bridge = plugin(nodeA, "bridge").orElseThrow();
    assertThat(bridge.getOwner()).isEqualTo("agent");
    assertThat(bridge.getSupportedVersions()).contains("1.0.0", "1.1.0");

    // Change n1 on node a only.
    NodeNetwork n1v2 = CniNodes.network("n1", 50, 13, "1.0.0");
    cniNodes.put(a.name, List.of(n1v2, n2));
    awaitApplied(a, n1v2, n2);
    assertManifestAgreesWithDisk(a, n1v2, n2);
    assertThat(Files.readString(b.conflist(n1.getFileName()))).isEqualTo(n1.getContent());

    // Remove n2 from node a.
    cniNodes.put(a.name, List.of(n1v2));
    await().atMost(CONVERGE).until(() -> !Files.exists(a.conflist(n2.getFileName())));
    assertManifestAgreesWithDisk(a, n1v2);
    await().atMost(CONVERGE).until(() -> state(cniNodes.get(a.name), "n2") == NetworkState.Removed);

    // Remove everything from node a: only the foreign files are left.
    cniNodes.put(a.name, List.of());
    await().atMost(CONVERGE).until(() -> !Files.exists(a.conflist(n1.getFileName())));
    assertThat(new TreeSet<>(List.of(a.paths.confDir().toFile().list())))
        .containsExactly("99-foreign.conflist");
    assertThat(sha(a.conflist("99-foreign.conflist")))
        .isEqualTo(foreignBefore.get("99-foreign.conflist"));
    assertThat(sha(a.paths.binDir().resolve("portmap"))).isEqualTo(foreignBefore.get("portmap"));
    await()
        .atMost(CONVERGE)
        .until(() -> "zz".equals(cniNodes.get(a.name).getStatus().getDefaultNetwork()));
  }

  /**
   * Issue 13: a spec change costs one pass. The agent's own status write comes back on its watch
   * and used to cause a second pass (and a second GET) on every node; only a new spec, an add or a
   * delete asks for one now. The resync is an hour, so no scheduled pass falls in the window.
   *
   * <p>Each change adds a network, whose first CHECK and cleanup hold the status write until they
   * end: the write runs on the pass thread after the pass, so a status showing the network applied
   * means the pass has been counted. The watch delivers events in order and passes run one at a
   * time, so once a change's pass has been counted, every pass an earlier event caused has been.
   */
  @Test
  void aSpecChangeCostsOnePassNotAnotherForTheAgentsOwnStatusWrite() throws Exception {
    NodeNetwork n1 = CniNodes.network("n1", 50, 31, "1.0.0");
    cniNodes.put(a.name, List.of(n1));
    agentA =
        AgentProcess.start(
            a.name,
            a.paths,
            cniNodes.controlPlane.kubeconfigFile(),
            a.log(),
            "--resync-seconds",
            "3600");
    awaitApplied(a, n1);
    await().atMost(CONVERGE).until(() -> agentA.port() > 0);
    // A first change, after the start: once applied, the start's passes are counted.
    NodeNetwork n2 = CniNodes.network("n2", 60, 32, "1.0.0");
    cniNodes.put(a.name, List.of(n1, n2));
    awaitApplied(a, n1, n2);
    double before = agentA.okPasses();

    NodeNetwork n3 = CniNodes.network("n3", 70, 33, "1.0.0");
    cniNodes.put(a.name, List.of(n1, n2, n3));
    awaitApplied(a, n1, n2, n3);
    double changed = agentA.okPasses();
    // Another change, whose event comes after that of the status write n3 made: a pass that write
    // caused would be counted once this change's is.
    NodeNetwork n4 = CniNodes.network("n4", 80, 34, "1.0.0");
    cniNodes.put(a.name, List.of(n1, n2, n3, n4));
    awaitApplied(a, n1, n2, n3, n4);

    assertThat(changed - before).as("passes for the change to n3").isEqualTo(1.0);
    assertThat(agentA.okPasses() - changed).as("passes for the change to n4").isEqualTo(1.0);
  }

  @Test
  void foreignFileOfTheSameNameIsAConflictAndStaysByteForByte() throws Exception {
    NodeNetwork n1 = CniNodes.network("n1", 50, 21, "1.0.0");
    byte[] theirs = "{\"cniVersion\":\"1.0.0\",\"name\":\"theirs\",\"plugins\":[]}".getBytes();
    Files.write(b.conflist(n1.getFileName()), theirs);
    cniNodes.put(b.name, List.of(n1));
    agentB = AgentProcess.start(b.name, b.paths, cniNodes.controlPlane.kubeconfigFile(), b.log());

    await()
        .atMost(CONVERGE)
        .until(() -> state(cniNodes.get(b.name), "n1") == NetworkState.Conflict);
    assertThat(Files.readAllBytes(b.conflist(n1.getFileName()))).isEqualTo(theirs);
    // The spec dropping it must not delete their file either.
    cniNodes.put(b.name, List.of());
    agentB.awaitOkPasses(2);
    assertThat(Files.readAllBytes(b.conflist(n1.getFileName()))).isEqualTo(theirs);
  }

  @Test
  void managedFileChangedOrRemovedBySomeoneElseIsRestored() throws Exception {
    NodeNetwork n1 = CniNodes.network("n1", 50, 22, "1.0.0");
    cniNodes.put(a.name, List.of(n1));
    agentA = AgentProcess.start(a.name, a.paths, cniNodes.controlPlane.kubeconfigFile(), a.log());
    awaitApplied(a, n1);

    Files.writeString(a.conflist(n1.getFileName()), "{\"edited\":true}");
    awaitRestored(n1, "RESTORE_CHANGED");
    Files.delete(a.conflist(n1.getFileName()));
    awaitRestored(n1, "RESTORE_REMOVED");

    // A graceful stop (SIGTERM) leaves the node exactly as it is, once the pass that restored the
    // file has ended (the manifest written after it).
    agentA.awaitOkPasses(2);
    Map<String, String> before = a.snapshot();
    agentA.close();
    assertThat(agentA.log()).contains("event=agent-stopped");
    assertThat(a.snapshot()).isEqualTo(before);
    assertThat(a.conflist(n1.getFileName())).exists();
  }

  /**
   * Issue 29: a Multus secondary network goes into Multus's directory, never the runtime's, under
   * the same ownership rules; it is never the node's default network; a foreign file there that
   * Multus cannot parse (it would stop every config-less NetworkAttachmentDefinition) is reported
   * until it is removed, and left alone; a network moved between the directories ends up only in
   * the new one.
   */
  @Test
  void aMultusNetworkGoesIntoMultussDirectoryOnlyAndUnparsableForeignFilesThereAreReported()
      throws Exception {
    Path multusDir = Files.createDirectories(a.paths.multusConfDir());
    // The runtime's pod network, someone else's: "zz" in 99-, after anything of ours.
    byte[] podNetwork =
        ("{\"cniVersion\":\"1.0.0\",\"name\":\"zz\",\"plugins\":[{\"type\":\"bridge\"}]}")
            .getBytes();
    Files.write(a.conflist("99-pods.conflist"), podNetwork);
    // In Multus's directory: a file in the way of m2, a broken one, a killed agent's temporary.
    NodeNetwork m1 = CniNodes.network("m1", 10, 41, "1.0.0").setDirectory(ConfigDirectory.Multus);
    NodeNetwork m2 = CniNodes.network("m2", 20, 42, "1.0.0").setDirectory(ConfigDirectory.Multus);
    byte[] theirs =
        "{\"cniVersion\":\"1.0.0\",\"name\":\"theirs\",\"plugins\":[{\"type\":\"macvlan\"}]}"
            .getBytes();
    Files.write(multusDir.resolve(m2.getFileName()), theirs);
    // A conflist saved as .conf: libcni reads a .conf as one plugin, which has no type.
    Path broken = multusDir.resolve("05-broken.conf");
    Files.write(broken, podNetwork);
    Path leftover = multusDir.resolve(".10-m1.conflist.cni-node-agent-0000.tmp");
    Files.writeString(leftover, "{");

    cniNodes.put(a.name, List.of(m1, m2));
    agentA = AgentProcess.start(a.name, a.paths, cniNodes.controlPlane.kubeconfigFile(), a.log());

    awaitApplied(a, m1);
    await()
        .atMost(CONVERGE)
        .until(() -> state(cniNodes.get(a.name), "m2") == NetworkState.Conflict);
    assertThat(status(cniNodes.get(a.name), "m2").orElseThrow().getMessage())
        .contains("Multus's configuration directory");
    assertThat(Files.readAllBytes(multusDir.resolve(m2.getFileName()))).isEqualTo(theirs);
    assertThat(a.conflist(m1.getFileName())).doesNotExist();
    assertThat(a.conflist(m2.getFileName())).doesNotExist();
    assertThat(leftover).doesNotExist();
    assertManifestAgreesWithDisk(a, m1);
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              CniNodeStatus st = cniNodes.get(a.name).getStatus();
              // m1 sorts first, but in Multus's directory: the runtime's default is still zz.
              assertThat(st.getDefaultNetwork()).isEqualTo("zz");
              assertThat(st.getUnparsableFiles())
                  .singleElement()
                  .satisfies(
                      f -> {
                        assertThat(f.getFile()).isEqualTo(broken.toString());
                        assertThat(f.getError()).contains("missing 'type'");
                      });
            });
    await().atMost(CONVERGE).until(() -> !unparsableEvents(a).isEmpty());
    assertThat(unparsableEvents(a).get(0).getMessage()).contains(broken.toString());
    assertThat(Files.readAllBytes(broken)).isEqualTo(podNetwork);
    assertThat(agentA.log()).contains("event=unparsable-foreign-file file=" + broken);

    Files.delete(broken);
    await()
        .atMost(CONVERGE)
        .until(() -> cniNodes.get(a.name).getStatus().getUnparsableFiles() == null);

    // m1 becomes the runtime's: written there, gone from Multus's directory, and now the default.
    NodeNetwork m1InRuntime = CniNodes.network("m1", 10, 41, "1.0.0");
    cniNodes.put(a.name, List.of(m1InRuntime, m2));
    awaitApplied(a, m1InRuntime);
    await().atMost(CONVERGE).until(() -> !Files.exists(multusDir.resolve(m1.getFileName())));
    assertManifestAgreesWithDisk(a, m1InRuntime);
    await()
        .atMost(CONVERGE)
        .until(() -> "m1".equals(cniNodes.get(a.name).getStatus().getDefaultNetwork()));
    // And back.
    cniNodes.put(a.name, List.of(m1, m2));
    awaitApplied(a, m1);
    await().atMost(CONVERGE).until(() -> !Files.exists(a.conflist(m1.getFileName())));
    assertManifestAgreesWithDisk(a, m1);

    // Dropped from the spec: only their file is left in Multus's directory.
    cniNodes.put(a.name, List.of());
    await().atMost(CONVERGE).until(() -> !Files.exists(multusDir.resolve(m1.getFileName())));
    assertThat(new TreeSet<>(List.of(multusDir.toFile().list()))).containsExactly(m2.getFileName());
    assertThat(Files.readAllBytes(multusDir.resolve(m2.getFileName()))).isEqualTo(theirs);

    // Empty now, and still there after a pass: the directory was there before the agent.
    Files.delete(multusDir.resolve(m2.getFileName()));
    NodeNetwork n1 = CniNodes.network("n1", 50, 43, "1.0.0");
    cniNodes.put(a.name, List.of(n1));
    awaitApplied(a, n1);
    assertThat(multusDir).isEmptyDirectory();
  }

  /**
   * Issue 52: a node gets Multus's directory from the agent only while it holds a Multus network:
   * made with the first file, and removed with the last, with the parent it made too.
   */
  @Test
  void theAgentMakesMultussDirectoryForItsFirstFileThereAndRemovesItWithItsLast() throws Exception {
    Path multusEtc = a.paths.multusConfDir().getParent();
    NodeNetwork n1 = CniNodes.network("n1", 50, 44, "1.0.0");
    NodeNetwork m1 = CniNodes.network("m1", 10, 45, "1.0.0").setDirectory(ConfigDirectory.Multus);
    cniNodes.put(a.name, List.of(n1));
    agentA = AgentProcess.start(a.name, a.paths, cniNodes.controlPlane.kubeconfigFile(), a.log());
    awaitApplied(a, n1);
    assertThat(multusEtc).as("no Multus network, no Multus directory").doesNotExist();
    assertThat(a.paths.multusCacheDir()).doesNotExist();

    cniNodes.put(a.name, List.of(n1, m1));
    awaitApplied(a, m1);
    assertThat(a.conflist(m1)).exists();
    assertThat(agentA.log()).contains("event=directories-created");

    cniNodes.put(a.name, List.of(n1));
    // The agent removes the directories first and its record of them after (a crash between leaves
    // a record of directories that are gone, which is harmless), so both are awaited.
    await()
        .atMost(CONVERGE)
        .until(() -> !Files.exists(multusEtc) && !Files.exists(a.paths.createdDirectoriesFile()));
    assertThat(a.conflist(n1)).exists();
    assertThat(a.paths.multusCacheDir()).doesNotExist();
  }

  private List<Event> unparsableEvents(SimulatedNode node) {
    return cniNodes.client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "CniNode".equals(e.getInvolvedObject().getKind()))
        .filter(e -> node.name.equals(e.getInvolvedObject().getName()))
        .filter(e -> "UnparsableMultusConfig".equals(e.getReason()))
        .toList();
  }

  private void awaitApplied(SimulatedNode node, NodeNetwork... networks) {
    await()
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              for (NodeNetwork n : networks) {
                assertThat(content(node, n)).isEqualTo(n.getContent());
                CniNode cr = cniNodes.get(node.name);
                NodeNetworkStatus s = status(cr, n.getName()).orElseThrow();
                assertThat(s.getState()).as(s.getMessage()).isEqualTo(NetworkState.Applied);
                assertThat(s.getAppliedSha256()).isEqualTo(n.getSha256());
              }
            });
  }

  /**
   * Node a holds {@code n}'s content again and agent A has logged the write with {@code reason}.
   * The file is back on disk a moment before the line that says so (the rename is followed by a
   * sync of the directory, then the log line; seen under CI's load), so both are waited for.
   */
  private void awaitRestored(NodeNetwork n, String reason) {
    await()
        .atMost(CONVERGE)
        .until(
            () ->
                content(a, n).equals(n.getContent()) && agentA.log().contains("reason=" + reason));
  }

  private static String content(SimulatedNode node, NodeNetwork n) throws IOException {
    Path p = node.conflist(n);
    return Files.exists(p) ? Files.readString(p) : "";
  }

  /**
   * The manifest comes to list exactly these conflists, each under its directory's key, at the
   * sha256 that is on disk.
   */
  private static void assertManifestAgreesWithDisk(SimulatedNode node, NodeNetwork... networks) {
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(() -> manifestAgreesWithDisk(node, networks));
  }

  private static void manifestAgreesWithDisk(SimulatedNode node, NodeNetwork... networks)
      throws IOException {
    JsonNode manifest = JSON.readTree(node.paths.manifestFile().toFile());
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      String key = dir == ConfigDirectory.Multus ? "multusConflists" : "conflists";
      TreeSet<String> listed = new TreeSet<>();
      manifest.path(key).fieldNames().forEachRemaining(listed::add);
      TreeSet<String> expected = new TreeSet<>();
      for (NodeNetwork n : networks) {
        if (node.paths.confDir(n.getDirectory()).equals(node.paths.confDir(dir))) {
          expected.add(n.getFileName());
          assertThat(manifest.get(key).get(n.getFileName()).get("sha256").asText())
              .isEqualTo(sha(node.conflist(n)));
        }
      }
      assertThat(listed).as(key).isEqualTo(expected);
    }
    manifest
        .get("binaries")
        .fields()
        .forEachRemaining(
            e -> {
              try {
                assertThat(sha(node.paths.binDir().resolve(e.getKey())))
                    .isEqualTo(e.getValue().get("sha256").asText());
              } catch (IOException ex) {
                throw new AssertionError(ex);
              }
            });
  }

  static String sha(Path p) throws IOException {
    return Sha256.hex(Files.readAllBytes(p));
  }

  static Optional<NodeNetworkStatus> status(CniNode node, String network) {
    if (node == null || node.getStatus() == null) {
      return Optional.empty();
    }
    return node.getStatus().network(network);
  }

  static NetworkState state(CniNode node, String network) {
    return status(node, network).map(NodeNetworkStatus::getState).orElse(null);
  }

  private static Optional<InstalledPlugin> plugin(CniNode node, String name) {
    return node.getStatus().getPlugins().stream().filter(p -> p.getName().equals(name)).findFirst();
  }
}
