package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 42.1 and 42.7 with Istio's real installer: install-cni (istio.io/istio, chained mode) and
 * the agent share the product's pod network file on one node. Over many resyncs neither rewrites
 * what the other wrote; an edit of the network is written with Istio's entry carried over, and
 * install-cni has nothing to re-insert; a pod added before and a pod added after the edit both go
 * through the istio-cni plugin, which programs its redirection rules in the pod's network namespace
 * (read there with iptables-save).
 */
class IstioInstallCniIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONVERGE = Duration.ofSeconds(30);
  private static final String SA_NAMESPACE = "istio-system";
  private static final String SA = "istio-cni";

  private LocalControlPlane cp;
  private CniNodes cniNodes;
  private SimulatedNode node;
  private AgentProcess agent;
  private IstioInstallCni istio;
  private String role;
  private final List<Runnable> undo = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    cp = LocalControlPlane.shared();
    cniNodes = new CniNodes(cp);
    node = new SimulatedNode("istio", ToolPaths.pluginDir());
    KubernetesClient c = cp.client();
    c.namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(SA_NAMESPACE).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    c.serviceAccounts()
        .inNamespace(SA_NAMESPACE)
        .resource(new ServiceAccountBuilder().withNewMetadata().withName(SA).endMetadata().build())
        .createOr(NonDeletingOperation::update);
    role = TestNames.unique("istio-cni");
    // What Istio's chart grants its CNI node agent.
    c.rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName(role)
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("pods", "nodes", "namespaces")
                .withVerbs("get", "list", "watch")
                .endRule()
                .build())
        .create();
    c.rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(role)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(SA)
                .withNamespace(SA_NAMESPACE)
                .endSubject()
                .build())
        .create();
  }

  @AfterEach
  void tearDown() throws Exception {
    for (int i = undo.size() - 1; i >= 0; i--) {
      undo.get(i).run();
    }
    if (istio != null) {
      istio.close();
    }
    if (agent != null) {
      agent.close();
    }
    cp.client().rbac().clusterRoleBindings().withName(role).delete();
    cp.client().rbac().clusterRoles().withName(role).delete();
    cniNodes.delete(node.name);
    node.close();
  }

  /** The pod network: ptp (no bridge on the host), host-local with its data under the node. */
  private NodeNetwork podNetwork(int subnet) {
    return CniNodes.network(
        "podnet",
        10,
        "{\"cniVersion\":\"1.0.0\",\"name\":\"podnet\",\"plugins\":[{\"type\":\"ptp\",\"ipam\":"
            + "{\"type\":\"host-local\",\"subnet\":\"10.200."
            + subnet
            + ".0/24\",\"dataDir\":\""
            + node.root.resolve("var/lib/cni/networks")
            + "\"}}]}");
  }

  @Test
  void istiosInstallerAndTheAgentShareThePodNetworkFileAndEveryPodGoesThroughIstio()
      throws Exception {
    NodeNetwork v1 = podNetwork(76);
    cniNodes.put(node.name, List.of(v1));
    agent = AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log());
    await().atMost(CONVERGE).until(() -> node.conflist(v1).toFile().exists());

    istio =
        IstioInstallCni.start(
            node, cp, cp.serviceAccountToken(SA_NAMESPACE, SA, Duration.ofHours(1)));
    istio.awaitWrites(1);
    assertThat(types(node.conflist(v1))).containsExactly("ptp", "istio-cni");
    assertThat(node.paths.binDir().resolve("istio-cni")).isExecutable();

    // Resyncs every 2 s: before, each restored the file and install-cni put its entry back. 30
    // passes are half an hour of a node at the chart's default resync (60 s), compressed.
    agent.awaitOkPasses(30);
    assertThat(agent.conflistWrites()).as("the agent's writes").containsExactly("CREATE");
    assertThat(istio.writes()).as("install-cni's writes").isEqualTo(1);
    NodeNetworkStatus reported = awaitAppended();
    assertThat(reported.getAppliedSha256()).isEqualTo(v1.getSha256());
    assertThat(istio.isAlive()).isTrue();

    // A pod added now goes through istio-cni, which sets up its redirection in the pod's netns.
    assertRedirected(addPod("before"));

    // An edit of the pod network: written with Istio's entry after the new revision's plugins.
    NodeNetwork v2 = podNetwork(77);
    cniNodes.put(node.name, List.of(v2));
    await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(() -> v2.getSha256().equals(awaitAppended().getAppliedSha256()));
    assertThat(JSON.readTree(node.conflist(v2).toFile()).at("/plugins/0/ipam/subnet").asText())
        .isEqualTo("10.200.77.0/24");
    assertThat(types(node.conflist(v2))).containsExactly("ptp", "istio-cni");
    agent.awaitOkPasses(5);
    assertThat(agent.conflistWrites()).containsExactly("CREATE", "UPDATE");
    assertThat(istio.writes()).as("install-cni had nothing to re-insert").isEqualTo(1);
    assertRedirected(addPod("after"));
    System.out.printf(
        "istio-install-cni agent-writes=%s install-cni-writes=%d passes>=35 (30 before the"
            + " edit: 30 min at the default 60 s resync)%n",
        agent.conflistWrites(), istio.writes());
  }

  private NodeNetworkStatus awaitAppended() {
    return await()
        .atMost(CONVERGE)
        .ignoreExceptions()
        .until(
            () -> cniNodes.get(node.name).getStatus().network("podnet").orElseThrow(),
            s ->
                s.getAppendedPlugins() != null
                    && List.of("istio-cni").equals(s.getAppendedPlugins().getTypes()));
  }

  /** A pod as Istio's injector leaves it, added to the pod network by cnitool from the file. */
  private NetworkNamespace addPod(String base) throws Exception {
    String name = TestNames.unique(base);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .addToAnnotations(
                "sidecar.istio.io/status",
                "{\"initContainers\":null,\"containers\":[\"istio-proxy\"],\"volumes\":null}")
            .endMetadata()
            .withNewSpec()
            .withNodeName(node.name)
            .addNewContainer()
            .withName("app")
            .withImage("registry.invalid/app:1")
            .endContainer()
            .addNewContainer()
            .withName("istio-proxy")
            .withImage("registry.invalid/proxyv2:1")
            .endContainer()
            .endSpec()
            .build();
    Pod created = cp.client().pods().inNamespace("default").resource(pod).create();
    undo.add(() -> Pods.delete(cp.client(), name));
    NetworkNamespace ns = NetworkNamespace.create(base);
    undo.add(ns::close);
    cnitool("add", ns, created).orThrow("cnitool add through istio-cni");
    undo.add(() -> cnitool("del", ns, created));
    return ns;
  }

  private CommandResult cnitool(String verb, NetworkNamespace ns, Pod pod) {
    return Attachments.cnitool(verb, "podnet", ns, pod, node.paths.confDir(), node.paths.binDir());
  }

  /** Istio's NAT chains are in the pod's netns, in the iptables backend the plugin chose. */
  private static void assertRedirected(NetworkNamespace ns) throws Exception {
    String rules = ns.exec("iptables-nft-save") + ns.exec("iptables-legacy-save");
    assertThat(rules).contains("ISTIO_REDIRECT").contains("ISTIO_INBOUND").contains("ISTIO_OUTPUT");
  }

  private static List<String> types(Path file) throws IOException {
    List<String> types = new ArrayList<>();
    JSON.readTree(file.toFile()).get("plugins").forEach(p -> types.add(p.get("type").asText()));
    return types;
  }
}
