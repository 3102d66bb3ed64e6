package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 42 on a kubelet node, installed as users install the product ({@code helm install} from a
 * registry, the chart's defaults): a foreign primary installed the way flannel and Calico ship
 * theirs (a DaemonSet whose init container copies its ConfigMap's conflist onto the node with
 * {@code cp}, on every start) provides the pod network {@code cbr0}, and a CniNetwork declares
 * {@code tuning} and {@code bandwidth} onto it with {@code spec.appendTo}. Pods the kubelet starts
 * get both plugins (tuning's MTU in the pod's netns, bandwidth's qdisc on the host's end of its
 * veth); the chain is back after the foreign DaemonSet's restart and after an agent restart, and
 * pods started after each get it; deleting the CniNetwork leaves the file as its product wrote it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SharedNodeE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final String FILE = ForeignPrimary.FILE;
  private static final String CHAIN = "pod-shaping";

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
  void aChainDeclaredOntoAFlannelStylePrimaryHoldsThroughItsRestartAndTheAgentsOnAKubeletNode()
      throws Exception {
    installForeignPrimary();
    await("the foreign primary's conflist on the node")
        .atMost(SETTLE)
        .until(() -> Files.exists(node.cniConfDir().resolve(FILE)));
    assertThat(types()).containsExactly("bridge", "portmap");
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
