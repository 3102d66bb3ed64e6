package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NetworkCheck;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.OlderChainPod;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Attachments made with the cni library and with libcni's cnitool for pods that exist are CHECKed
 * healthy; breaking one shows it failing in the status with an Event on its pod.
 */
class AttachmentCheckIT {
  /** cnitool always uses libcni's default cache, so this node's agent reads that one. */
  private static final Path LIBCNI_CACHE = Path.of("/var/lib/cni");

  private static final int QUIET_INTERVAL_SECONDS = 5; // the CRD's minimum

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private NetworkNamespace ns1;
  private NetworkNamespace ns2;
  private Pod p1;
  private Pod p2;
  private Attachments attachments;
  private Supplier<CommandResult> runtimeAttachment;
  private String network;
  private NodeNetwork spec;

  @BeforeEach
  void setUp() throws Exception {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("chk", ToolPaths.pluginDir());
    network = TestNames.unique("chk");
    String content =
        "{\"cniVersion\":\"1.1.0\",\"name\":\""
            + network
            // ptp, not bridge: removing one bridge port changes the bridge's MAC, and the bridge
            // plugin's CHECK of every other attachment then fails on the MAC in its cached result.
            + "\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200.61.0/24\",\"dataDir\":\""
            + node.root.resolve("var/lib/cni/networks")
            + "\"}}]}";
    // The CniNetwork's name differs from the conflist's: libcni's cache is keyed by the latter.
    spec =
        CniNodes.network(TestNames.unique("cr"), 50, content)
            .setCheck(new NetworkCheck().setEnabled(true).setIntervalSeconds(5));
    p1 = Pods.create(cp.client(), node.name, TestNames.unique("p1"));
    p2 = Pods.create(cp.client(), node.name, TestNames.unique("p2"));
    ns1 = NetworkNamespace.create("chk1");
    ns2 = NetworkNamespace.create("chk2");
  }

  @AfterEach
  void tearDown() throws Exception {
    if (agent != null) {
      agent.close();
    }
    if (runtimeAttachment != null) {
      runtimeAttachment.get();
    }
    if (attachments != null) {
      attachments.delQuietly(p1, ns1);
      cnitool("del", ns2, p2);
    }
    ns1.close();
    ns2.close();
    Pods.delete(cp.client(), p1.getMetadata().getName());
    Pods.delete(cp.client(), p2.getMetadata().getName());
    cniNodes.delete(node.name);
    node.close();
  }

  private CommandResult cnitool(String verb, NetworkNamespace ns, Pod pod) {
    return cnitool(verb, ns, pod, node.paths.confDir());
  }

  private CommandResult cnitool(String verb, NetworkNamespace ns, Pod pod, Path confDir) {
    return Attachments.cnitool(verb, network, ns, pod, confDir, node.paths.binDir());
  }

  @Test
  void attachmentsOfLivePodsAreHealthyAndABrokenOneIsReportedWithAnEventOnItsPod()
      throws Exception {
    startWithTwoHealthyAttachments();

    ns1.exec("ip", "link", "del", "eth0");
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = networkStatus().getAttachments();
              assertThat(a.getHealthy()).isEqualTo(1);
              FailingAttachment f = a.getFailing().get(0);
              assertThat(f.getPod()).isEqualTo(p1.getMetadata().getName());
              assertThat(f.getNamespace()).isEqualTo("default");
              assertThat(f.getContainerId()).isEqualTo(Attachments.containerId(p1));
              assertThat(f.getIfName()).isEqualTo("eth0");
              assertThat(f.getError()).isNotBlank();
            });
    await().atMost(Duration.ofSeconds(30)).until(() -> !eventsOn(p1).isEmpty());
    Event e = eventsOn(p1).get(0);
    assertThat(e.getType()).isEqualTo("Warning");
    assertThat(e.getMessage()).contains(spec.getName()).contains("eth0");
    assertThat(eventsOn(p2)).isEmpty();
  }

  @Test
  void withLiveAttachmentsAndNothingChangingTheAgentWritesNoStatusAcrossCheckIntervals()
      throws Exception {
    // The product's defaults (CHECK and cleanup on, the CniNetwork leaves both unset) but for a
    // short CHECK interval, which also makes the cleanup pass run every interval.
    spec.setCheck(new NetworkCheck().setIntervalSeconds(QUIET_INTERVAL_SECONDS));
    assertThat(spec.getIpamCleanup()).isNull();
    startWithTwoHealthyAttachments();
    assertThat(networkStatus().getLastCheckTime()).isNotNull();
    // The cleanup pass has reported the two reservations: the last change there is to report.
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(() -> assertThat(networkStatus().getIpam().getReservations()).isEqualTo(2));

    String before = cniNodes.get(node.name).getMetadata().getResourceVersion();
    // Three or more CHECK passes (as many cleanup passes) while watching.
    int passes = agent.awaitLogged(AgentProcess.checkPass(spec.getName()), 4).size();
    String after = cniNodes.get(node.name).getMetadata().getResourceVersion();
    System.out.printf(
        "quiet-node check-interval=%ds check-passes=%d status-writes=%s%n",
        QUIET_INTERVAL_SECONDS, passes, before.equals(after) ? "0" : "some");
    assertThat(after).as("the CniNode's resourceVersion across the CHECK passes").isEqualTo(before);
  }

  /**
   * Issue 42.4: pods added before another installer chained a plugin into the network's file run
   * the chain without it until they are created again; the CniNode counts and names them, and a pod
   * added again leaves the list.
   */
  @Test
  void podsAddedBeforeAPluginWasChainedInAreNamedUntilTheyAreAddedAgain() throws Exception {
    startWithTwoHealthyAttachments();
    // The other installer brings its plugin's binary and chains it in, as a mesh's does.
    Files.copy(
        ToolPaths.pluginDir().resolve("tuning"),
        node.paths.binDir().resolve("tuning"),
        StandardCopyOption.COPY_ATTRIBUTES);
    try (ChainingInstaller installer =
        new ChainingInstaller(node.paths.confDir(), "{\"type\":\"tuning\"}")) {
      awaitOlderChain(p1, p2);

      // p2 "restarted": deleted and added again from the file, tuning included.
      cnitool("del", ns2, p2).orThrow("cnitool del");
      cnitool("add", ns2, p2).orThrow("cnitool add");
      awaitOlderChain(p1);
      assertThat(agent.scrape())
          .contains("cni_agent_attachments_on_older_chain{network=\"" + spec.getName() + "\"} 1.0");
      assertThat(installer.writes).hasValue(1);
    }
  }

  /**
   * The network's status comes to count exactly {@code pods} on an older chain, each added without
   * the tuning plugin chained in since, and both attachments healthy.
   */
  private void awaitOlderChain(Pod... pods) {
    List<String> names = Stream.of(pods).map(p -> p.getMetadata().getName()).toList();
    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = networkStatus().getAttachments();
              assertThat(a.getOlderChain()).isEqualTo(pods.length);
              assertThat(a.getOlderChainPods())
                  .extracting(OlderChainPod::getPod)
                  .containsExactlyInAnyOrderElementsOf(names);
              assertThat(a.getOlderChainPods())
                  .extracting(OlderChainPod::getWhy)
                  .containsOnly("added without tuning, which the file now chains");
              assertThat(a.getHealthy()).isEqualTo(2);
            });
  }

  /** The agent, two attachments of live pods (library and cnitool), both CHECKed healthy. */
  private void startWithTwoHealthyAttachments() throws Exception {
    startAgent();
    attachments = new Attachments(node.paths.binDir(), LIBCNI_CACHE, spec.getContent());
    attachments.add(p1, ns1);
    cnitool("add", ns2, p2).orThrow("cnitool add");

    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = networkStatus().getAttachments();
              assertThat(a.getTotal()).isEqualTo(2);
              assertThat(a.getHealthy()).isEqualTo(2);
              assertThat(networkStatus().getPluginStatus()).isEqualTo("Available");
            });
  }

  /**
   * A runtime cached a config of this network that breaks only a policy rule of ours (a reserved
   * key) and differs from the current one (another host-local data dir): CHECK must run with the
   * cached config, under which the attachment is healthy, not with the current one, under which
   * host-local finds no reservation.
   */
  @Test
  void aCachedConfigThatBreaksOnlyAPolicyRuleIsCheckedAsCached() throws Exception {
    Path runtimeConf = node.root.resolve("runtime-net.d");
    Files.createDirectories(runtimeConf);
    Files.writeString(
        runtimeConf.resolve("10-" + network + ".conflist"),
        "{\"cniVersion\":\"1.1.0\",\"name\":\""
            + network
            + "\",\"plugins\":[{\"type\":\"ptp\",\"cni.dev/note\":\"made by a runtime\","
            + "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200.62.0/24\",\"dataDir\":\""
            + node.root.resolve("runtime-ipam")
            + "\"}}]}");
    startAgent();
    runtimeAttachment = () -> cnitool("del", ns2, p2, runtimeConf);
    cnitool("add", ns2, p2, runtimeConf).orThrow("cnitool add");

    await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = networkStatus().getAttachments();
              assertThat(a.getTotal()).isEqualTo(1);
              assertThat(a.getHealthy()).isEqualTo(1);
            });
  }

  /** Starts this node's agent on libcni's cache and waits until it wrote the network's file. */
  private void startAgent() throws Exception {
    cniNodes.put(node.name, List.of(spec));
    agent =
        AgentProcess.start(
            node.name, node.paths.withCacheDir(LIBCNI_CACHE), cp.kubeconfigFile(), node.log());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> node.conflist(spec.getFileName()).toFile().exists());
  }

  private NodeNetworkStatus networkStatus() {
    return NodeAgentLifecycleIT.status(cniNodes.get(node.name), spec.getName()).orElseThrow();
  }

  private List<Event> eventsOn(Pod pod) {
    return cp.client().v1().events().inNamespace("default").list().getItems().stream()
        .filter(ev -> pod.getMetadata().getName().equals(ev.getInvolvedObject().getName()))
        .filter(ev -> "CniCheckFailed".equals(ev.getReason()))
        .toList();
  }
}
