package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.agent.network.ProbeIdentity;
import dev.cnioperator.agent.probe.ProbeNamespaces;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.HostLocalStore;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent as a process proves each content its CniNode asks proof for and reports it in the
 * status; a bridge MTU no interface accepts fails at ADD; what a probe killed with the agent left
 * is gone once the agent runs again.
 */
class ProbeAgentIT {
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private String network;
  private String bridge;
  private String subnet;

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("probe", ToolPaths.pluginDir());
    network = TestNames.unique("pr");
    bridge = TestNames.unique("prb");
    subnet = "10.209." + ThreadLocalRandom.current().nextInt(256) + ".0/24";
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    for (String ns : new ProbeNamespaces().owned(ProbeIdentity.forNode(node.name))) {
      Commands.run("ip", "netns", "delete", ns);
    }
    Commands.run("ip", "link", "delete", bridge);
    cniNodes.delete(node.name);
    node.close();
  }

  private NodeNetwork spec(int mtu) {
    String content =
        "{\"cniVersion\":\"1.0.0\",\"name\":\""
            + network
            + "\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\""
            + bridge
            + "\",\"mtu\":"
            + mtu
            + ",\"ipam\":{\"type\":\"host-local\",\"subnet\":\""
            + subnet
            + "\",\"dataDir\":\""
            + ipamDir()
            + "\"}}]}";
    return CniNodes.network(network, 50, content)
        .setRevision(Integer.toHexString(mtu).repeat(64).substring(0, 64))
        .setProbe(new RolloutProbe().setEnabled(true));
  }

  private Path ipamDir() {
    return node.root.resolve("ipam");
  }

  private Optional<ProbeReport> probeOf(String sha) {
    CniNode n = cniNodes.get(node.name);
    if (n == null || n.getStatus() == null || n.getStatus().getNetworks() == null) {
      return Optional.empty();
    }
    return n.getStatus().getNetworks().stream()
        .filter(s -> network.equals(s.getName()))
        .map(NodeNetworkStatus::getProbe)
        .filter(p -> p != null && sha.equals(p.getSha256()))
        .findFirst();
  }

  private ProbeReport awaitProbe(String sha) {
    return await("probe of " + sha)
        .atMost(CONVERGE)
        .until(() -> probeOf(sha), Optional::isPresent)
        .get();
  }

  private void assertNothingLeft() throws Exception {
    assertThat(new ProbeNamespaces().owned(ProbeIdentity.forNode(node.name))).isEmpty();
    assertThat(HostLocalStore.reservedIps(ipamDir().resolve(network))).isEmpty();
    assertThat(new dev.cnioperator.cni.cache.ResultCache(node.paths.cacheDir()).list(network))
        .isEmpty();
  }

  @Test
  void eachContentIsProvenAndABrokenBridgeMtuFailsAtAdd() throws Exception {
    NodeNetwork good = spec(1400);
    cniNodes.put(node.name, List.of(good));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());

    ProbeReport passed = awaitProbe(good.getSha256());
    assertThat(passed.getResult()).as(passed.getMessage()).isEqualTo(ProbeResult.Passed);
    assertNothingLeft();

    NodeNetwork bad = spec(70000);
    cniNodes.put(node.name, List.of(bad));
    ProbeReport failed = awaitProbe(bad.getSha256());

    assertThat(failed.getResult()).isEqualTo(ProbeResult.Failed);
    assertThat(failed.getMessage()).startsWith("ADD: ").contains("invalid argument");
    assertNothingLeft();
  }

  /**
   * Issue 42.1: the probe proves the file the runtime runs, a plugin another installer appended
   * included; when only that plugin fails, the report names it as another installer's.
   */
  @Test
  void aProbeThatFailsOnlyInAnotherInstallersPluginNamesIt() throws Exception {
    Path mesh = node.paths.binDir().resolve("meshfail");
    Files.writeString(
        mesh,
        """
        #!/bin/sh
        case "$CNI_COMMAND" in
          VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.4.0","1.0.0","1.1.0"]}' ;;
          ADD) echo '{"cniVersion":"1.0.0","code":999,"msg":"the mesh refuses this pod"}'; exit 1 ;;
          *) exit 0 ;;
        esac
        """);
    Files.setPosixFilePermissions(
        mesh, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    NodeNetwork first = spec(1400);
    cniNodes.put(node.name, List.of(first));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());
    assertThat(awaitProbe(first.getSha256()).getResult()).isEqualTo(ProbeResult.Passed);

    try (ChainingInstaller installer =
        new ChainingInstaller(node.paths.confDir(), "{\"type\":\"meshfail\"}")) {
      await().atMost(CONVERGE).until(() -> installer.writes.get() >= 1);
      NodeNetwork next = spec(1300);
      cniNodes.put(node.name, List.of(next));
      ProbeReport failed = awaitProbe(next.getSha256());
      assertThat(failed.getResult()).isEqualTo(ProbeResult.Failed);
      assertThat(failed.getMessage())
          .startsWith("ADD: plugin meshfail is not this network's own: another installer's")
          .contains("the mesh refuses this pod");
      assertNothingLeft();
    }
  }

  /**
   * "Applied" and the probe's report of a new content reach the API server in one status write:
   * every status write wakes the operator and every watcher of CniNodes, on every node at once.
   */
  @Test
  void aNewContentIsAppliedAndReportedInOneStatusWrite() throws Exception {
    NodeNetwork first = spec(1400);
    cniNodes.put(node.name, List.of(first));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());
    awaitProbe(first.getSha256());

    List<CniNode> statusWrites = new CopyOnWriteArrayList<>();
    NodeNetwork next = spec(1450);
    try (Watch watch = watchStatusWrites(statusWrites)) {
      long generation = cniNodes.put(node.name, List.of(next)).getMetadata().getGeneration();
      assertThat(awaitProbe(next.getSha256()).getResult()).isEqualTo(ProbeResult.Passed);
      CniNode reported =
          await("the watch event of the write with the report")
              .atMost(CONVERGE)
              .until(
                  () -> statusWrites.stream().filter(n -> reportOf(n, next) != null).findFirst(),
                  Optional::isPresent)
              .get();

      NodeNetworkStatus status = reportOf(reported, next);
      assertThat(status.getAppliedSha256()).isEqualTo(next.getSha256());
      assertThat(reported.getStatus().getObservedGeneration()).isEqualTo(generation);
      if (statusWrites.size() != 1) {
        // Which of the agent's passes wrote what: the node's directory is gone after the test.
        System.out.println("agent log of " + node.name + ":\n" + Files.readString(node.log()));
      }
      assertThat(statusWrites)
          .as(
              "status writes from the spec change to the probe's report: %s",
              statusWrites.stream().map(CniNode::getStatus).toList())
          .extracting(n -> n.getMetadata().getResourceVersion())
          .containsExactly(reported.getMetadata().getResourceVersion());
    }
  }

  /** Collects each update of the node's CniNode that changed its status and not its spec. */
  private Watch watchStatusWrites(List<CniNode> into) {
    return cniNodes
        .client
        .resources(CniNode.class)
        .withName(node.name)
        .watch(
            new Watcher<>() {
              private Long generation;

              @Override
              public void eventReceived(Action action, CniNode n) {
                Long now = n.getMetadata().getGeneration();
                if (action == Action.MODIFIED && java.util.Objects.equals(generation, now)) {
                  into.add(n);
                }
                generation = now;
              }

              @Override
              public void onClose(WatcherException cause) {}
            });
  }

  private NodeNetworkStatus reportOf(CniNode n, NodeNetwork network) {
    if (n.getStatus() == null || n.getStatus().getNetworks() == null) {
      return null;
    }
    return n.getStatus().getNetworks().stream()
        .filter(s -> this.network.equals(s.getName()))
        .filter(s -> s.getProbe() != null && network.getSha256().equals(s.getProbe().getSha256()))
        .findFirst()
        .orElse(null);
  }

  @Test
  void whatAProbeKilledWithTheAgentLeftIsGoneOnceItRunsAgain() throws Exception {
    NodeNetwork good = spec(1400);
    // As a probe killed after ADD leaves it: its namespace, its cache entry, its reservation.
    Attachments attachments =
        new Attachments(ToolPaths.pluginDir(), node.paths.cacheDir(), good.getContent());
    String id = ProbeIdentity.forNode(node.name).containerId(good.getSha256());
    Path netns = new ProbeNamespaces().create(id);
    attachments.runtime.addNetworkList(
        attachments.list, Attachment.of(id, netns.toString(), ProbeIdentity.IF_NAME));
    assertThat(HostLocalStore.reservedIps(ipamDir().resolve(network))).hasSize(1);

    cniNodes.put(node.name, List.of(good));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());

    assertThat(awaitProbe(good.getSha256()).getResult()).isEqualTo(ProbeResult.Passed);
    assertNothingLeft();
  }
}
