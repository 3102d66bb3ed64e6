package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.containerd.OciImage;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 42.1 and 42.7 on a kubelet node: Istio's real CNI node installer ({@code install-cni},
 * built from istio.io/istio by e2e/bin/provision) runs as Istio runs it, a privileged DaemonSet in
 * chained mode, beside the product installed with {@code helm install}. It chains its plugin into
 * the product's pod network file; over 30 resyncs of the agent (half an hour at the default 60 s,
 * compressed to 2 s with the agent's {@code AGENT_RESYNC_SECONDS}) neither side writes the file
 * again; an edit of the pod network is rolled out with Istio's entry carried over, and install-cni
 * has nothing to re-insert. Pods the kubelet starts before and after the edit go through the {@code
 * istio-cni} plugin, which programs its redirection in each pod's network namespace (read there
 * with iptables-save). The image is made here, one layer with Istio's two binaries, imported into
 * the node's runtime (pushed to the test's registry for CRI-O, which pulls it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IstioOnKubeletE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final String NETWORK = "podnet";
  private static final String FILE = "10-" + NETWORK + ".conflist";
  private static final String ISTIO_IMAGE = "cni-operator.test/istio-install-cni:1";
  private static final Pattern WROTE = Pattern.compile("Wrote CNI config to");
  private static final Pattern AGENT_WROTE =
      Pattern.compile("event=conflist-written network=" + NETWORK + " .*reason=(\\S+)");

  private OneNodeProduct product;
  private KubeletCluster cluster;
  private LocalControlPlane cp;
  private KubeletNode node;
  private ChartRelease release;
  private String apps;

  @BeforeAll
  void startCluster() throws IOException {
    product = OneNodeProduct.install("istio", runtime());
    cluster = product.cluster;
    cp = product.cp;
    node = product.node;
    release = product.release;
    apps = product.apps;
    // Half an hour of the chart's 60 s resync, compressed: a pass every 2 s.
    release.setAgentResync(cluster, Duration.ofSeconds(2), OneNodeProduct.INSTALL_WAIT);
    Path dir = Files.createDirectories(node.dir().resolve("istio-image"));
    Path istio = ToolPaths.istioDir();
    node.importImage(
        OciImage.write(
            ISTIO_IMAGE,
            List.of(
                new OciImage.File(
                    "usr/local/bin/install-cni",
                    0755,
                    Files.readAllBytes(istio.resolve("install-cni"))),
                new OciImage.File(
                    "opt/cni/bin/istio-cni", 0755, Files.readAllBytes(istio.resolve("istio-cni")))),
            List.of("/usr/local/bin/install-cni"),
            dir.resolve("istio-install-cni.tar")));
  }

  /** The node's runtime: Debian's containerd 1.6 here, another in a subclass. */
  RuntimeRelease runtime() {
    return ContainerdRelease.DEBIAN_1_6;
  }

  @AfterAll
  void stopCluster() {
    if (product != null) {
      product.close();
    }
  }

  @Test
  void istiosInstallerAndTheProductShareThePodNetworkFileAndEveryPodGoesThroughIstio()
      throws Exception {
    cp.kubectlWithInput(podNetwork(""), "apply", "-f", "-").orThrow("apply the pod network");
    ClusterNetworks.on(cp).waitRolledOut(NETWORK);
    installIstioCni();
    await("install-cni chained its plugin in")
        .atMost(SETTLE)
        .until(() -> types().equals(List.of("bridge", "istio-cni")));
    assertThat(istioWrites()).isEqualTo(1);

    int passes = 30;
    Thread.sleep(Duration.ofSeconds(2L * passes + 2).toMillis());
    assertThat(agentWrites()).as("the agent's writes of %s", FILE).containsExactly("CREATE");
    assertThat(istioWrites()).as("install-cni's writes").isEqualTo(1);
    assertThat(types()).containsExactly("bridge", "istio-cni");
    Pod before = istioPod("before");
    assertRedirected(before);

    // An edit of the pod network: rolled out with Istio's entry after the new revision's plugins.
    cp.kubectlWithInput(podNetwork("mtu: 1400"), "apply", "-f", "-").orThrow("edit the network");
    ClusterNetworks.on(cp).waitRolledOut(NETWORK);
    JsonNode file = JSON.readTree(Files.readString(node.cniConfDir().resolve(FILE)));
    assertThat(file.at("/plugins/0/mtu").asInt()).isEqualTo(1400);
    assertThat(types()).containsExactly("bridge", "istio-cni");
    Thread.sleep(Duration.ofSeconds(10).toMillis());
    assertThat(agentWrites()).containsExactly("CREATE", "UPDATE");
    assertThat(istioWrites()).as("install-cni had nothing to re-insert").isEqualTo(1);
    Pod after = istioPod("after");
    assertRedirected(after);
    assertRedirected(before);

    CommandResult wide = cp.kubectl("get", "cninodes", "-o", "wide");
    CommandResult described = cp.kubectl("describe", "cninetwork", NETWORK);
    System.out.printf(
        "event=istio-on-kubelet-e2e-as-a-user-sees-it agent-writes=%s install-cni-writes=%d"
            + " passes>=%d%n$ kubectl get cninodes -o wide%n%s%n$ kubectl describe cninetwork %s%n%s%n",
        agentWrites(), istioWrites(), passes, wide.stdout(), NETWORK, described.stdout());
    assertThat(described.stdout()).contains("istio-cni");
  }

  private String podNetwork(String extraBridgeField) {
    return ClusterNetworks.podNetwork(
        NETWORK, "cbist0", "ipamCleanup: {gracePeriodSeconds: 30}", extraBridgeField);
  }

  /**
   * Istio's CNI DaemonSet as its chart renders it in chained sidecar mode, repair off: its
   * ServiceAccount and what the chart grants it, the node's conf and bin dirs at /host/..., the API
   * server at the address every pod of the test kit reaches (no kube-proxy here).
   */
  private void installIstioCni() {
    URI api = URI.create(cluster.bridge().apiServerUrl());
    String manifest =
        """
        apiVersion: v1
        kind: Namespace
        metadata:
          name: istio-system
          labels: {pod-security.kubernetes.io/enforce: privileged}
        ---
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: istio-cni, namespace: istio-system}
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata: {name: istio-cni}
        rules:
          - apiGroups: [""]
            resources: [pods, nodes, namespaces]
            verbs: [get, list, watch]
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRoleBinding
        metadata: {name: istio-cni}
        roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: istio-cni}
        subjects: [{kind: ServiceAccount, name: istio-cni, namespace: istio-system}]
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: istio-cni-node, namespace: istio-system}
        spec:
          selector:
            matchLabels: {k8s-app: istio-cni-node}
          template:
            metadata:
              labels: {k8s-app: istio-cni-node}
            spec:
              serviceAccountName: istio-cni
              hostNetwork: true
              tolerations: [{operator: Exists}]
              containers:
                - name: install-cni
                  image: %s
                  imagePullPolicy: IfNotPresent
                  args: [--log_output_level=default:info]
                  securityContext: {privileged: true, runAsUser: 0}
                  env:
                    - {name: KUBERNETES_SERVICE_HOST, value: "%s"}
                    - {name: KUBERNETES_SERVICE_PORT, value: "%d"}
                    - {name: POD_NAMESPACE, value: istio-system}
                    - {name: CHAINED_CNI_PLUGIN, value: "true"}
                    - {name: REPAIR_ENABLED, value: "false"}
                    - {name: AMBIENT_ENABLED, value: "false"}
                    - {name: EXCLUDE_NAMESPACES, value: kube-system}
                  volumeMounts:
                    - {name: cni-conf, mountPath: /host/etc/cni/net.d}
                    - {name: cni-bin, mountPath: /host/opt/cni/bin}
                    - {name: run, mountPath: /var/run/istio-cni}
                    - {name: tmp, mountPath: /tmp}
              volumes:
                - {name: cni-conf, hostPath: {path: /etc/cni/net.d}}
                - {name: cni-bin, hostPath: {path: /opt/cni/bin}}
                - {name: run, hostPath: {path: /var/run/istio-cni, type: DirectoryOrCreate}}
                - {name: tmp, emptyDir: {}}
        """
            .formatted(ISTIO_IMAGE, api.getHost(), api.getPort());
    cp.kubectlWithInput(manifest, "apply", "-f", "-").orThrow("apply Istio's CNI DaemonSet");
  }

  /** How many times install-cni wrote the conflist, from its container's log. */
  private int istioWrites() {
    return count(
        WROTE, cp.kubectl("-n", "istio-system", "logs", "daemonset/istio-cni-node").stdout());
  }

  /** Why the agent wrote the pod network's file, each time, from its container's log. */
  private List<String> agentWrites() {
    String log = release.log("agent");
    List<String> reasons = new ArrayList<>();
    Matcher m = AGENT_WROTE.matcher(log);
    while (m.find()) {
      reasons.add(m.group(1));
    }
    return reasons;
  }

  private static int count(Pattern p, String text) {
    Matcher m = p.matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private List<String> types() {
    return NodePods.pluginTypes(node, FILE);
  }

  /** A pod as Istio's injector leaves it: an istio-proxy container and the sidecar annotation. */
  private Pod istioPod(String prefix) {
    String name = TestNames.unique(prefix);
    Pod pod =
        new PodBuilder(NodePods.pinnedPausePod(name, node))
            .editMetadata()
            .addToAnnotations(
                "sidecar.istio.io/status",
                "{\"initContainers\":null,\"containers\":[\"istio-proxy\"],\"volumes\":null}")
            .endMetadata()
            .editSpec()
            .addNewContainer()
            .withName("istio-proxy")
            .withImage(node.runtime().pauseImage())
            .withImagePullPolicy("IfNotPresent")
            .endContainer()
            .endSpec()
            .build();
    cp.client().pods().inNamespace(apps).resource(pod).create();
    return await("pod " + name + " running")
        .atMost(SETTLE)
        .until(() -> cp.client().pods().inNamespace(apps).withName(name).get(), NodePods::running);
  }

  /** Istio's NAT chains in the pod's netns, in whichever iptables backend the plugin chose. */
  private void assertRedirected(Pod pod) {
    String rules =
        NodePods.inPodNetwork(node, pod, "iptables-nft-save").stdout()
            + NodePods.inPodNetwork(node, pod, "iptables-legacy-save").stdout();
    assertThat(rules)
        .as("iptables rules in the netns of %s", pod.getMetadata().getName())
        .contains("ISTIO_REDIRECT")
        .contains("ISTIO_INBOUND")
        .contains("ISTIO_OUTPUT");
  }
}
