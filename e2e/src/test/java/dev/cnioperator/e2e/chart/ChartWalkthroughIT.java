package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.node.SandboxNamespaces;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What NOTES.txt tells a user to do, with the operator and a node agent run exactly as the chart's
 * Deployment and DaemonSet run them (arguments, environment, JVM options) and authenticated as the
 * chart's own ServiceAccounts: the chart's RBAC and node-restriction policy must let both do their
 * whole job, and both programs must accept every flag the chart passes. The agent's host paths move
 * into a sandbox directory; the network is the bridge example.
 */
class ChartWalkthroughIT {
  private static final Pattern HOST_PATH_FLAG =
      Pattern.compile("--(conf|bin|cache|state|multus-conf|multus-cache|kubelet)-dir=(/.*)");
  private static final Duration TOKEN_TTL = Duration.ofMinutes(30);

  @Test
  void bridgeExampleBecomesReadyWithTheChartsSettings() throws Exception {
    LocalControlPlane controlPlane = LocalControlPlane.shared();
    KubernetesClient admin = controlPlane.client();
    String run = TestNames.unique("walk");
    Path sandbox = Path.of("target/chart-walkthrough", run).toAbsolutePath();
    String podCidr = TestNames.podCidr();
    // The network selects this node only, so Nodes of other tests cannot hold Ready back.
    Node node =
        admin
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(run + "-node")
                    .addToLabels("cnioperator.dev/walkthrough", run)
                    .endMetadata()
                    .withNewSpec()
                    .withPodCIDR(podCidr)
                    .withPodCIDRs(podCidr)
                    .endSpec()
                    .build())
            .create();
    String network = run + "-bridge";
    Files.createDirectories(sandbox);
    try (ChartRelease release =
        ChartRelease.install(controlPlane, "walk", "--set", "operator.replicas=2")) {
      RenderedChart manifest = release.manifest();
      // Both replicas of a two-replica Deployment: one leads, the other waits on the Lease. The
      // agent's probe
      // runs ADD and DEL in namespaces of the node's own: the bridge plugin leaves its bridge after
      // DEL (as on a cluster, where pods share it) and host-local its directory in /var/lib/cni.
      try (ChartContainerProcess operator = startOperator(release, manifest, sandbox, 0);
          ChartContainerProcess standby = startOperator(release, manifest, sandbox, 1);
          SandboxNamespaces namespaces =
              SandboxNamespaces.start(
                  sandbox.resolve("var/lib/cni"),
                  controlPlane.apiServerPort(),
                  sandbox.resolve("namespaces.log"));
          ChartContainerProcess agent = startAgent(release, manifest, node, sandbox, namespaces)) {
        CommandResult applied =
            controlPlane.kubectlWithInput(bridgeExampleFor(network, run), "apply", "-f", "-");
        assertThat(applied.exitCode()).as("kubectl apply: %s", applied.stderr()).isZero();

        CommandResult ready =
            controlPlane.kubectl(
                "wait", "--for=condition=Ready", "cninetwork/" + network, "--timeout=120s");

        assertThat(ready.exitCode())
            .as(
                "kubectl wait: %s%noperator logs:%n%s%n%s%nagent log:%n%s",
                ready.stderr(), operator.log(), standby.log(), agent.log())
            .isZero();
        Path conflist = sandbox.resolve("etc/cni/net.d/50-" + network + ".conflist");
        assertThat(conflist).exists();
        JsonNode written = new ObjectMapper().readTree(conflist.toFile());
        assertThat(written.at("/plugins/0/type").asText()).isEqualTo("bridge");
        assertThat(written.at("/plugins/0/ipam/ranges/0/0/subnet").asText())
            .as("the node's own pod CIDR")
            .isEqualTo(podCidr);
        keepsAMultusNetworksDefinition(controlPlane, release.namespace(), run);
        assertThat(operator.log() + standby.log() + agent.log())
            .doesNotContainIgnoringCase("forbidden");
        assertThat(sandbox.resolve("var/lib/cni/networks").resolve(network))
            .as("host-local's reservations of the probe, in the node's /var/lib/cni")
            .isDirectory();
        assertThat(Path.of("/var/lib/cni/networks").resolve(network)).doesNotExist();

        controlPlane.kubectl("delete", "cninetwork", network, "--wait", "--timeout=60s");
        await().atMost(Duration.ofSeconds(60)).until(() -> !Files.exists(conflist));
      }
    } finally {
      controlPlane.kubectl("delete", "cninetwork", network, "--ignore-not-found", "--wait=false");
      admin.nodes().withName(node.getMetadata().getName()).delete();
      deleteTree(sandbox);
    }
  }

  /**
   * The chart's RBAC lets the operator keep a Multus network's NetworkAttachmentDefinition: with
   * the CRD installed (the operator test's copy, of the shape Multus installs; removed after, if
   * installed here), a Multus network on no node gets its definition in the namespace it names.
   */
  private static void keepsAMultusNetworksDefinition(
      LocalControlPlane controlPlane, String namespace, String run) {
    String crd = "network-attachment-definitions.k8s.cni.cncf.io";
    boolean installedHere = !controlPlane.kubectl("get", "crd", crd).ok();
    String network = run + "-sec";
    try {
      if (installedHere) {
        controlPlane
            .kubectl(
                "apply",
                "-f",
                ToolPaths.repoRoot()
                    .resolve(
                        "operator/src/test/resources/multus/network-attachment-definition-crd.yaml")
                    .toString())
            .orThrow("apply the NetworkAttachmentDefinition CRD");
        controlPlane
            .kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/" + crd)
            .orThrow("wait for the CRD");
      }
      controlPlane
          .kubectlWithInput(
              "apiVersion: cnioperator.dev/v1alpha1\nkind: CniNetwork\nmetadata: {name: "
                  + network
                  + "}\nspec:\n  nodeSelector: {matchLabels: {cnioperator.dev/walkthrough: none}}\n"
                  + "  plugins: [{type: macvlan, master: eth0}]\n"
                  + "  attachment: {multus: {namespaces: ["
                  + namespace
                  + "]}}\n",
              "apply",
              "-f",
              "-")
          .orThrow("apply a Multus network");
      controlPlane
          .kubectl(
              "wait",
              "--for=condition=AttachmentDefinitions",
              "cninetwork/" + network,
              "--timeout=60s")
          .orThrow("wait for its NetworkAttachmentDefinitions");
      controlPlane
          .kubectl("get", "-n", namespace, "network-attachment-definitions", network)
          .orThrow("its NetworkAttachmentDefinition");
    } finally {
      controlPlane.kubectl("delete", "cninetwork", network, "--ignore-not-found", "--wait=true");
      if (installedHere) {
        controlPlane.kubectl("delete", "crd", crd, "--ignore-not-found");
      }
    }
  }

  /**
   * Replica {@code replica} of the operator with the chart's Deployment settings and a token of the
   * chart's operator ServiceAccount.
   */
  private static ChartContainerProcess startOperator(
      ChartRelease release, RenderedChart manifest, Path sandbox, int replica) throws IOException {
    assertThat(replica)
        .isLessThan(manifest.single("Deployment", Deployment.class).getSpec().getReplicas());
    Container container = manifest.onlyContainer("Deployment");
    Path kubeconfig =
        LocalControlPlane.shared()
            .writeKubeconfigForToken(
                release.operatorToken(TOKEN_TTL),
                sandbox.resolve("operator-" + replica + ".kubeconfig"));
    return ChartContainerProcess.start(
        List.of(),
        dev.cnioperator.operator.Main.class,
        container,
        arg -> arg.startsWith("--metrics-port=") ? "--metrics-port=0" : arg,
        List.of("--kubeconfig=" + kubeconfig),
        Map.of("NAMESPACE", release.namespace(), "POD_NAME", "operator-" + replica),
        sandbox.resolve(sandbox.getFileName() + "-operator-" + replica + ".log"));
  }

  /**
   * The agent with the chart's DaemonSet settings, its host paths under {@code sandbox} (the netns
   * dir is the namespaces' own) and the token its pod would get, run in {@code namespaces}.
   */
  private static ChartContainerProcess startAgent(
      ChartRelease release,
      RenderedChart manifest,
      Node node,
      Path sandbox,
      SandboxNamespaces namespaces)
      throws IOException {
    Container container = manifest.onlyContainer("DaemonSet");
    Path kubeconfig =
        LocalControlPlane.shared()
            .writeKubeconfigForToken(
                release.agentPodToken(node, TOKEN_TTL), sandbox.resolve("agent.kubeconfig"));
    return ChartContainerProcess.start(
        namespaces.launcher(),
        dev.cnioperator.agent.Main.class,
        container,
        arg -> intoSandbox(arg, sandbox),
        List.of(
            "--kubeconfig=" + kubeconfig,
            "--bundled-plugin-dir=" + ToolPaths.pluginDir(),
            "--resync-seconds=2"),
        Map.of(
            "NODE_NAME", node.getMetadata().getName(),
            "POD_NAME", "agent-" + node.getMetadata().getName(),
            "NAMESPACE", release.namespace()),
        sandbox.resolve(sandbox.getFileName() + "-agent.log"));
  }

  private static String intoSandbox(String arg, Path sandbox) {
    Matcher hostPath = HOST_PATH_FLAG.matcher(arg);
    if (hostPath.matches()) {
      Path inSandbox = sandbox.resolve(hostPath.group(2).substring(1));
      try {
        Files.createDirectories(inSandbox);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      return "--" + hostPath.group(1) + "-dir=" + inSandbox;
    }
    // The agent runs on the node itself here, not in a container with the node's / mounted: the
    // node's root is its own. Every plugin is still chrooted into it, so the chart's flag is taken.
    if (arg.startsWith("--plugin-root=")) {
      return "--plugin-root=/";
    }
    // The host network's port may be taken on this machine.
    return arg.startsWith("--listen=") ? "--listen=127.0.0.1:0" : arg;
  }

  /** examples/bridge-hostlocal-portmap.yaml, renamed and selecting only this test's node. */
  private static String bridgeExampleFor(String name, String run) throws IOException {
    YAMLMapper yaml = new YAMLMapper();
    ObjectNode example =
        (ObjectNode)
            yaml.readTree(
                ToolPaths.repoRoot().resolve("examples/bridge-hostlocal-portmap.yaml").toFile());
    ((ObjectNode) example.get("metadata")).put("name", name);
    ((ObjectNode) example.get("spec"))
        .putObject("nodeSelector")
        .putObject("matchLabels")
        .put("cnioperator.dev/walkthrough", run);
    return yaml.writeValueAsString(example);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
