package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 42 on a kubelet node, installed as users install the product ({@code helm install} from a
 * registry, the chart's defaults): a foreign primary installed the way flannel and Calico ship
 * theirs (a DaemonSet whose init container copies its ConfigMap's conflist onto the node with
 * {@code cp}, on every start) provides the pod network {@code cbr0}, and a CniNetwork declares
 * {@code tuning} and {@code bandwidth} onto it with {@code spec.appendTo}. Pods the kubelet starts
 * get both plugins (tuning's MTU in the pod's netns, bandwidth's qdisc on the host's end of its
 * veth); the chain is back after the foreign DaemonSet's restart and after an agent restart, and
 * pods started after each get it; deleting the CniNetwork leaves the file as its product wrote it.
 * Then an installer that takes the directory over (Cilium's {@code cni.exclusive}, reproduced)
 * renames the product's own file away after every restore: the agent stops after three, reports the
 * network Contested, and restores nothing more until the file is given back.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SharedNodeE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final String FILE = ForeignPrimary.FILE;
  private static final String CHAIN = "pod-shaping";

  /**
   * The agent's resync in the contested test: the chart's 60 s, compressed, so that the passes
   * after the contest (the watch sees nothing more once the file is gone) are many. What is tested
   * there is the count (three restores of one file within the window, then none).
   */
  private static final Duration CONTESTED_RESYNC = Duration.ofSeconds(5);

  private OneNodeProduct product;
  private KubeletCluster cluster;
  private LocalControlPlane cp;
  private KubeletNode node;
  private ChartRelease release;
  private String apps;
  private String foreignNamespace;
  private String foreignConflist;

  @BeforeAll
  void startCluster() {
    product = OneNodeProduct.install("shared");
    cluster = product.cluster;
    cp = product.cp;
    node = product.node;
    release = product.release;
    apps = product.apps;
  }

  @AfterAll
  void stopCluster() {
    if (product != null) {
      product.close();
    }
  }

  @Test
  @Order(1)
  void aChainDeclaredOntoAFlannelStylePrimaryHoldsThroughItsRestartAndTheAgentsOnAKubeletNode()
      throws Exception {
    installForeignPrimary();
    // Whole, not only there: its init container's cp creates the file, then writes it.
    await("the foreign primary's conflist on the node, whole")
        .atMost(SETTLE)
        .untilAsserted(() -> assertThat(types()).containsExactly("bridge", "portmap"));
    // A pod on the foreign primary alone, before any chain is declared onto it.
    Pod before = runPausePod("before");

    cp.kubectlWithInput(chain(1400), "apply", "-f", "-")
        .orThrow("kubectl apply of the declared chain");
    ClusterNetworks.on(cp).waitRolledOut(CHAIN);
    assertThat(types()).containsExactly("bridge", "portmap", "tuning", "bandwidth");
    CommandResult wide = cp.kubectl("get", "cninodes", "-o", "wide");
    CommandResult described = cp.kubectl("describe", "cninetwork", CHAIN);
    System.out.printf(
        "event=shared-node-e2e-as-a-user-sees-it%n$ kubectl get cninodes -o wide%n%s%n"
            + "$ kubectl describe cninetwork %s%n%s%n",
        wide.stdout(), CHAIN, described.stdout());
    assertThat(described.stdout())
        .as("who else is in a file is information, not a warning")
        .doesNotContainPattern("Warning +OwnPluginsOnly");
    Pod first = runPausePod("first");
    assertChained(first);
    // The pod from before runs the chain without the declared plugins, and is named for that.
    await("the pod from before named on an older chain")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              AttachmentSummary a =
                  cp.client()
                      .resources(CniNode.class)
                      .withName(node.name())
                      .get()
                      .getStatus()
                      .network(CHAIN)
                      .orElseThrow()
                      .getAttachments();
              // Every pod the kubelet added to cbr0 is counted; the product's own pods too if
              // the chart's pods run on the pod network.
              assertThat(a.getOlderChainPods())
                  .anySatisfy(
                      p -> {
                        assertThat(p.getNamespace()).isEqualTo(apps);
                        assertThat(p.getPod()).isEqualTo(before.getMetadata().getName());
                        assertThat(p.getWhy())
                            .isEqualTo(
                                "added without tuning, bandwidth, which the file now chains");
                      })
                  .noneSatisfy(
                      p -> assertThat(p.getPod()).isEqualTo(first.getMetadata().getName()));
              assertThat(a.getUncheckedReason()).contains("another product owns");
            });
    System.out.printf(
        "event=shared-node-e2e-older-chain%n$ kubectl get cninode %s -o jsonpath=..attachments%n%s%n",
        node.name(),
        cp.kubectl(
                "get",
                "cninode",
                node.name(),
                "-o",
                "jsonpath={.status.networks[?(@.name==\"" + CHAIN + "\")].attachments}")
            .stdout());

    // The foreign primary's DaemonSet restarts: its init container copies its file over ours.
    long restart = System.nanoTime();
    cp.kubectl("-n", foreignNamespace, "delete", "pod", "-l", "app=foreign-primary", "--wait=false")
        .orThrow("delete the foreign primary's pod");
    await("the foreign primary copied its file again")
        .atMost(SETTLE)
        .until(() -> foreignCopies() >= 2);
    await("the chain back").atMost(SETTLE).until(() -> types().size() == 4);
    long backMillis = (System.nanoTime() - restart) / 1_000_000;
    assertChained(runPausePod("after-foreign-restart"));

    // The agent restarts, and the foreign primary rewrites its file while it is away.
    cp.kubectl(
            "-n", release.namespace(), "delete", "pod", "-l", "app.kubernetes.io/component=agent")
        .orThrow("delete the agent's pod");
    Files.writeString(node.cniConfDir().resolve(FILE), foreignConflist);
    await("the chain back after the agent's restart")
        .atMost(SETTLE)
        .until(() -> types().size() == 4);
    assertChained(runPausePod("after-agent-restart"));

    // An edit that breaks pods (an MTU no veth takes) fails the node's probe of the whole chain and
    // is rolled back: the file holds the good entry again.
    cp.kubectlWithInput(chain(70000), "apply", "-f", "-").orThrow("apply a breaking edit");
    await("the breaking edit rolled back")
        .atMost(SETTLE)
        .until(
            () ->
                cp.kubectl("get", "cninetwork", CHAIN, "-o", "jsonpath={.status.rollout.phase}")
                    .stdout(),
            "RolledBack"::equals);
    await("the good entry back in the file")
        .atMost(SETTLE)
        .until(
            () ->
                JSON.readTree(Files.readString(node.cniConfDir().resolve(FILE)))
                    .at("/plugins/2/mtu")
                    .asInt(),
            mtu -> mtu == 1400);
    assertChained(runPausePod("after-rollback"));

    cp.kubectl("delete", "cninetwork", CHAIN).orThrow("kubectl delete cninetwork");
    await("the file as its product wrote it")
        .atMost(SETTLE)
        .untilAsserted(
            () ->
                assertThat(JSON.readTree(Files.readString(node.cniConfDir().resolve(FILE))))
                    .isEqualTo(JSON.readTree(foreignConflist)));
    System.out.printf(
        "event=shared-node-e2e foreign-restart-to-chain-back-ms=%d (the pod's deletion, its"
            + " init container's start and copy, then the agent's re-append)%n",
        backMillis);
  }

  @Test
  @Order(2)
  void aFileRenamedAwayByAnExclusiveOwnerIsReportedContestedAndNotFought() throws Exception {
    String network = "bystander";
    ClusterNetworks networks = ClusterNetworks.on(cp);
    // Only here: the first test proves the chain put back by the conf dir's watch, which a short
    // resync would hide.
    release.setAgentResync(cluster, CONTESTED_RESYNC, OneNodeProduct.INSTALL_WAIT);
    // The pods of the first test go first: the other installer leaves the runtime a pod network
    // whose plugin is not on the node, with which no pod's network could be torn down.
    cp.kubectl("-n", apps, "delete", "pods", "--all", "--wait=true").orThrow("delete the pods");
    networks.apply(
        ClusterNetworks.bridgeNetwork(
            network, 50, "matchLabels: {kubernetes.io/os: linux}", "cbby0", 77, 60));
    networks.waitRolledOut(network);
    String fileName =
        networks
            .cniNode(node.name())
            .orElseThrow()
            .getSpec()
            .network(network)
            .orElseThrow()
            .getFileName();
    Path file = node.cniConfDir().resolve(fileName);
    assertThat(file).exists();

    installExclusiveOwner();
    try {
      // The agent's directory watch sees its file renamed away each time: three restores within
      // seconds, not three resyncs.
      awaitState(networks, network, NetworkState.Contested, Duration.ofMinutes(2));
      String message = networks.nodeStatus(node.name(), network).orElseThrow().getMessage();
      assertThat(message)
          .contains("renamed to " + fileName + ".cilium_bak")
          .contains("cni.exclusive=false");
      int restores = restoresOf(fileName);
      assertThat(restores).as("restores before the agent stopped").isEqualTo(3);
      // Not fought: through three more resyncs the file stays renamed away and no restore follows.
      Thread.sleep(CONTESTED_RESYNC.multipliedBy(3).plusSeconds(2).toMillis());
      assertThat(file).doesNotExist();
      assertThat(restoresOf(fileName)).isEqualTo(restores);
      assertThat(
              cp.kubectl(
                      "get",
                      "events",
                      "-n",
                      "default",
                      "--field-selector",
                      "involvedObject.name=" + node.name() + ",reason=FileContested",
                      "-o",
                      "name")
                  .orThrow("get events")
                  .stdout())
          .isNotBlank();
      System.out.printf(
          "event=shared-node-e2e-contested restores=%d%n$ kubectl get cninodes -o wide%n%s%n"
              + "$ kubectl get cninode %s -o jsonpath=..message%n%s%n",
          restores, cp.kubectl("get", "cninodes", "-o", "wide").stdout(), node.name(), message);
    } finally {
      // The other installer goes and its files with it; what it renamed is given back, as a user
      // does after setting cni.exclusive=false.
      cp.kubectl("-n", foreignNamespace, "delete", "daemonset", "exclusive-owner", "--wait=true")
          .orThrow("delete the exclusive owner");
      await("the exclusive owner's pod gone")
          .atMost(SETTLE)
          .until(
              () ->
                  cp.client()
                      .pods()
                      .inNamespace(foreignNamespace)
                      .withLabel("app", "exclusive-owner")
                      .list()
                      .getItems()
                      .isEmpty());
      Files.deleteIfExists(node.cniConfDir().resolve("05-cilium.conflist"));
      try (var renamed = Files.list(node.cniConfDir())) {
        for (Path backup :
            renamed.filter(f -> f.getFileName().toString().endsWith(".cilium_bak")).toList()) {
          String original = backup.getFileName().toString().replace(".cilium_bak", "");
          Files.move(backup, backup.resolveSibling(original));
        }
      }
    }
    // The file is back under its name: the agent takes it up at its next pass.
    try {
      awaitState(networks, network, NetworkState.Applied, SETTLE);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          e.getMessage()
              + "\nconf dir: "
              + NodePods.confFiles(node)
              + "\nstatus: "
              + networks.nodeStatus(node.name(), network)
              + "\nforeign namespace's pods: "
              + cp.kubectl("-n", foreignNamespace, "get", "pods", "-o", "wide").stdout()
              + "\nagent log on "
              + fileName
              + ":\n"
              + release
                  .log("agent")
                  .lines()
                  .filter(l -> l.contains(network))
                  .reduce("", (a, b) -> a + b + "\n"),
          e);
    }
    networks.delete(network);
  }

  /**
   * A reproduction of what Cilium's agent does with {@code cni.exclusive=true} (Cilium itself needs
   * a kernel datapath the test nodes cannot give it; ContestedFileIT's ExclusiveOwner cites the
   * source): it writes its own file, then renames every other top-level {@code .conf}, {@code
   * .conflist} and {@code .json} file to {@code <name>.cilium_bak}, overwriting an older backup, on
   * each change of the directory. Cilium reacts to inotify events; this polls every 100 ms, which
   * the agent sees the same way: its file renamed away soon after each restore.
   */
  private void installExclusiveOwner() {
    String manifest =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata:
          name: exclusive-owner
          namespace: %1$s
        spec:
          selector:
            matchLabels: {app: exclusive-owner}
          template:
            metadata:
              labels: {app: exclusive-owner}
            spec:
              hostNetwork: true
              # Not 0: a pod deleted with no grace leaves the API at once, before its container
              # is stopped, which would go on renaming what the test gives back.
              terminationGracePeriodSeconds: 1
              tolerations: [{operator: Exists}]
              containers:
                - name: rename-others
                  image: %2$s
                  securityContext: {runAsUser: 0, privileged: true}
                  volumeMounts:
                    - {name: cni, mountPath: /etc/cni/net.d}
                  command:
                    - sh
                    - -c
                    - |
                      own=05-cilium.conflist
                      d=/etc/cni/net.d
                      echo '{"cniVersion":"0.3.1","name":"cilium","plugins":[{"type":"cilium-cni"}]}' > "$d/$own"
                      while :; do
                        for f in "$d"/*.conf "$d"/*.conflist "$d"/*.json; do
                          [ -f "$f" ] || continue
                          [ "${f##*/}" = "$own" ] && continue
                          mv -f "$f" "$f.cilium_bak"
                        done
                        sleep 0.1
                      done
              volumes:
                - {name: cni, hostPath: {path: /etc/cni/net.d}}
        """
            .formatted(foreignNamespace, release.agentImage());
    cp.kubectlWithInput(manifest, "apply", "-f", "-").orThrow("apply the exclusive owner");
  }

  private void awaitState(
      ClusterNetworks networks, String network, NetworkState state, Duration atMost) {
    await(network + " " + state + " on " + node.name())
        .atMost(atMost)
        .until(
            () ->
                networks
                    .nodeStatus(node.name(), network)
                    .map(n -> n.getState() == state)
                    .orElse(false));
  }

  /** How often the agent restored {@code fileName} after it was removed, from its log. */
  private int restoresOf(String fileName) {
    return (int)
        release
            .log("agent")
            .lines()
            .filter(l -> l.contains("event=conflist-written") && l.contains("RESTORE_REMOVED"))
            .filter(l -> l.contains(fileName))
            .count();
  }

  private static String chain(int mtu) {
    return ForeignPrimary.chain(CHAIN, mtu);
  }

  private void installForeignPrimary() {
    String podCidr = cp.client().nodes().withName(node.name()).get().getSpec().getPodCIDR();
    ForeignPrimary foreign = ForeignPrimary.install(cp, release, podCidr);
    foreignNamespace = foreign.namespace;
    foreignConflist = foreign.conflist;
  }

  private long foreignCopies() throws IOException {
    return ForeignPrimary.copies(node);
  }

  private List<String> types() {
    return ForeignPrimary.types(node);
  }

  private Pod runPausePod(String prefix) {
    String name = TestNames.unique(prefix);
    cp.client().pods().inNamespace(apps).resource(NodePods.pinnedPausePod(name, node)).create();
    return await("pod " + name + " running")
        .atMost(SETTLE)
        .until(() -> cp.client().pods().inNamespace(apps).withName(name).get(), NodePods::running);
  }

  private void assertChained(Pod pod) throws IOException {
    assertThat(ForeignPrimary.missingChain(node, pod)).isEmpty();
  }
}
