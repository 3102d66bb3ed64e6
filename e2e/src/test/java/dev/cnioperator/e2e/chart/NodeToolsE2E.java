package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.e2e.ClusterNetworks;
import dev.cnioperator.e2e.CniNetworkYaml;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Issue 42.6 on a kubelet node with the chart's defaults: a plugin that is a script for the node's
 * {@code python3}, which the agent's image does not have, chained into the product's pod network.
 * The container runtime runs it on the node; the agent must run it the same way (chrooted into the
 * node's root, {@code agent.runPluginsInNodeRoot}), for its {@code VERSION}, the probe of the
 * revision and the CHECK of every pod. Before, the agent held the network back ("cannot start") or,
 * had it been written, reported every healthy pod failing CHECK.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeToolsE2E {
  private static final Duration SETTLE = Duration.ofSeconds(120);
  private static final String NETWORK = "pods-marked";
  private static final String PLUGIN = "py-mark";
  private static final String LOG = "/var/lib/cni/py-mark.log";

  /**
   * A chained plugin in Python: it passes the previous result on, and logs each command it ran with
   * the interpreter that ran it, on the node.
   */
  private static final String SCRIPT =
      """
      #!/usr/bin/python3
      import json, os, sys
      command = os.environ.get("CNI_COMMAND", "")
      with open("%s", "a") as log:
          log.write("%%s %%s %%s\\n" %% (command, os.environ.get("CNI_CONTAINERID", "-"), sys.executable))
      if command == "VERSION":
          print(json.dumps({"cniVersion": "1.0.0",
                            "supportedVersions": ["0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0"]}))
          sys.exit(0)
      conf = json.load(sys.stdin)
      if command == "ADD":
          result = dict(conf["prevResult"])
          result["cniVersion"] = conf["cniVersion"]
          print(json.dumps(result))
      """
          .formatted(LOG);

  private OneNodeProduct product;
  private LocalControlPlane cp;
  private KubeletNode node;

  @BeforeAll
  void startCluster() {
    product = OneNodeProduct.install("nodetools");
    cp = product.cp;
    node = product.node;
  }

  @AfterAll
  void stopCluster() {
    if (product != null) {
      product.close();
    }
  }

  @Test
  void aScriptPluginForTheNodesPython3IsRunAsTheRuntimeRunsItAndItsPodsAreHealthy()
      throws Exception {
    assertThat(Path.of("/usr/bin/python3"))
        .as("the node's python3 (this machine's /usr, which every test node shares)")
        .isExecutable();
    String agentPod =
        cp.kubectl(
                "-n",
                product.release.namespace(),
                "get",
                "pods",
                "-l",
                "app.kubernetes.io/component=agent",
                "-o",
                "jsonpath={.items[0].metadata.name}")
            .orThrow("the agent's pod")
            .stdout()
            .strip();
    CommandResult inImage =
        cp.kubectl(
            "-n",
            product.release.namespace(),
            "exec",
            agentPod,
            "--",
            "test",
            "-e",
            "/usr/bin/python3");
    assertThat(inImage.exitCode())
        .as("the agent's image has no python3, so only the node's can run the plugin")
        .isNotZero();
    Path script = node.hostPath("/opt/cni/bin/" + PLUGIN);
    Files.writeString(script, SCRIPT);
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));

    ClusterNetworks networks = ClusterNetworks.on(cp);
    networks.apply(
        CniNetworkYaml.named(NETWORK)
            .priority(10)
            .plugin(
                "type: bridge\nbridge: cbmark0\nisGateway: true\nipam:\n  type: host-local\n"
                    + "  ranges: \"$(node.hostLocalRanges)\"")
            .plugin("type: " + PLUGIN)
            .checkEvery(5)
            .yaml());
    networks.waitRolledOut(NETWORK);
    String apps = NodePods.startPausePods(cp.client(), 3);
    List<Pod> pods = NodePods.runningPods(cp.client(), apps, node);
    assertThat(pods).hasSize(3);

    await("three healthy pods checked through the node's python3")
        .atMost(SETTLE)
        .untilAsserted(
            () -> {
              AttachmentSummary a =
                  networks.nodeStatus(node.name(), NETWORK).orElseThrow().getAttachments();
              assertThat(a.getUnchecked()).as("unchecked (%s)", a.getUncheckedReason()).isNull();
              assertThat(a.getFailing()).isNullOrEmpty();
              assertThat(a.getTotal()).isEqualTo(3);
              assertThat(a.getHealthy()).isEqualTo(3);
              List<String> log = Files.readAllLines(node.hostPath(LOG));
              for (Pod pod : pods) {
                assertThat(log)
                    .as("the agent's CHECK of %s", pod.getMetadata().getName())
                    .contains("CHECK " + NodePods.sandboxId(node, pod) + " /usr/bin/python3");
              }
            });
    List<String> log = Files.readAllLines(node.hostPath(LOG));
    assertThat(log)
        .as("VERSION, the probe's ADD and DEL, the runtime's ADDs and the agent's CHECKs")
        .anyMatch(l -> l.startsWith("VERSION "))
        .anyMatch(l -> l.startsWith("DEL "))
        .allMatch(l -> l.endsWith(" /usr/bin/python3"));
    assertThat(networks.condition(NETWORK, "Degraded").orElseThrow().getStatus())
        .isEqualTo("False");
    String described = networks.describe(NETWORK);
    System.out.printf(
        "event=node-tools-e2e%n$ kubectl describe cninetwork %s%n%s%n", NETWORK, described);
    assertThat(described).as("no false alarm").doesNotContain("Warning");
  }
}
