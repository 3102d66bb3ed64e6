package dev.cnioperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.agent.kube.CriSandboxNetns;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A CniNetwork applied with kubectl through the installed product reaches a real containerd: the
 * operator renders it for the node, the agent writes the conflist, containerd loads it and runs its
 * plugins for a pod sandbox started with crictl, and the agent CHECKs that sandbox's attachment
 * from the cache entry containerd wrote, and reports containerd's NetworkReady.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ContainerdProductE2E {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  private LocalControlPlane cp;
  private LocalProduct product;
  private ContainerdFixture containerd;
  private Path work;
  private final String node = TestNames.unique("ctdnode");
  private final String network = TestNames.unique("ctdnet");
  private String podNamespace;

  @BeforeAll
  void installTheProductBesideContainerd() throws Exception {
    Prerequisites.requireRoot();
    cp = LocalControlPlane.shared();
    work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "e2e-ctd-");
    product = LocalProduct.install(cp, work);
    product.createNode(node, Map.of("kubernetes.io/hostname", node));
    product.startOperator("ctd-operator");
    // The agent's node directories, as LocalProduct lays them out, made first for containerd.
    Path root = work.resolve("nodes/" + node);
    Path confDir = Files.createDirectories(root.resolve("etc/cni/net.d"));
    Path binDir = Files.createDirectories(root.resolve("opt/cni/bin"));
    // containerd runs loopback for every sandbox; on a real node the distribution installs it.
    Files.copy(
        ToolPaths.pluginDir().resolve("loopback"),
        binDir.resolve("loopback"),
        StandardCopyOption.COPY_ATTRIBUTES);
    containerd = ContainerdFixture.start(work.resolve("ctd"), confDir, binDir);
    product.startAgent(
        node,
        ContainerdFixture.CNI_CACHE_DIR,
        ProcessOptions.DEFAULT.withArgs("--cri-socket=" + containerd.socket()));
    podNamespace = PodNamespaces.create(cp.client(), "ctdpods");
  }

  @AfterAll
  void stopEverything() {
    if (containerd != null) {
      containerd.close();
    }
    if (product != null) {
      cp.kubectl("delete", "cninetwork", network, "--ignore-not-found", "--timeout=60s");
      product.close();
    }
    if (cp != null) {
      if (podNamespace != null) {
        cp.client().namespaces().withName(podNamespace).delete();
      }
    }
  }

  @Test
  void aCniNetworkAppliedThroughTheOperatorIsLoadedByContainerdAndItsSandboxIsCheckedHealthy()
      throws Exception {
    await().atMost(WAIT).ignoreExceptions().until(() -> !runtime().getNetworkReady());
    assertThat(runtime().getReason()).isEqualTo("NetworkPluginNotReady");

    cp.kubectlWithInput(
            CniNetworkYaml.named(network)
                .priority(50)
                .matchLabel("kubernetes.io/hostname", node)
                .plugin(
                    "type: ptp\n"
                        + CniNetworkYaml.hostLocal(
                            "[[{subnet: 10.216.20.0/24}]]", work.resolve("ipam")))
                .checkEvery(5)
                .yaml(),
            "apply",
            "-f",
            "-")
        .orThrow("kubectl apply");
    ClusterNetworks.on(cp).waitReady(network);
    await().atMost(WAIT).ignoreExceptions().until(() -> runtime().getNetworkReady());

    Pod pod = createPod("web");
    String id =
        containerd.runPodSandbox(
            pod.getMetadata().getName(), podNamespace, pod.getMetadata().getUid());
    JsonNode inspect =
        JSON.readTree(containerd.crictl("inspectp", id).orThrow("crictl inspectp").stdout());
    String ip = inspect.path("status").path("network").path("ip").asText();
    String netns = CriSandboxNetns.networkNamespace(inspect.path("info")).orElseThrow();
    assertThat(ip).startsWith("10.216.20.");
    assertThat(
            Commands.run("nsenter", "--net=" + netns, "ip", "-o", "-4", "addr", "show", "eth0")
                .orThrow("eth0 in the sandbox")
                .stdout())
        .contains(ip + "/24");
    String libcniName =
        cp.client()
            .resources(CniNetwork.class)
            .withName(network)
            .get()
            .getStatus()
            .getNetworkName();
    assertThat(
            new ResultCache(ContainerdFixture.CNI_CACHE_DIR)
                .list(libcniName).stream().map(CachedAttachment::containerId))
        .containsExactly(id);
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              AttachmentSummary a = nodeStatus().orElseThrow().getAttachments();
              assertThat(a.getTotal()).isEqualTo(1);
              assertThat(a.getHealthy()).isEqualTo(1);
            });

    containerd.crictl("stopp", id).orThrow("crictl stopp");
    containerd.crictl("rmp", id).orThrow("crictl rmp");
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(nodeStatus().orElseThrow().getAttachments().getTotal()).isZero());
  }

  private Pod createPod(String base) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(TestNames.unique(base))
            .withNamespace(podNamespace)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("c")
            .withImage("registry.invalid/none:1")
            .endContainer()
            .endSpec()
            .build();
    return cp.client().pods().inNamespace(podNamespace).resource(pod).create();
  }

  private RuntimeNetwork runtime() {
    return Optional.ofNullable(cp.client().resources(CniNode.class).withName(node).get())
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getRuntime)
        .orElseThrow();
  }

  private Optional<NodeNetworkStatus> nodeStatus() {
    return Optional.ofNullable(cp.client().resources(CniNode.class).withName(node).get())
        .map(CniNode::getStatus)
        .map(CniNodeStatus::getNetworks)
        .flatMap(l -> l.stream().filter(s -> network.equals(s.getName())).findFirst());
  }
}
