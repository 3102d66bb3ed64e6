package dev.cnioperator.testkit.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two real nodes side by side: both register with node credentials, stay NotReady until a CNI
 * configuration is written into that node's own conf dir, run pods networked by it, and run a
 * hostNetwork pod each on the same host port.
 */
class KubeletNodeIT {
  private static final String NETWORK = "kubelet-node-it";
  private static KubeletCluster cluster;
  private static LocalControlPlane cp;
  private static KubeletNode first;
  private static KubeletNode second;

  @BeforeAll
  static void start() {
    cluster = KubeletCluster.start(2);
    cp = cluster.controlPlane();
    first = cluster.nodes().get(0);
    second = cluster.nodes().get(1);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void nodesRegisterNotReadyThenAConflistMakesOneReadyAndNetworksItsPods() throws Exception {
    KubernetesClient client = cp.client();
    for (KubeletNode node : List.of(first, second)) {
      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () ->
                  assertThat(ready(client.nodes().withName(node.name()).get()).getMessage())
                      .contains("cni plugin not initialized"));
      Node n = client.nodes().withName(node.name()).get();
      assertThat(n.getStatus().getAddresses())
          .anyMatch(a -> a.getType().equals("InternalIP") && a.getAddress().equals(node.address()));
    }
    Node firstNode = client.nodes().withName(first.name()).get();
    String podCidr = firstNode.getSpec().getPodCIDR();
    assertThat(podCidr).startsWith("10.232.");

    Files.writeString(first.cniConfDir().resolve("10-test.conflist"), conflist(podCidr));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "True".equals(ready(client.nodes().withName(first.name()).get()).getStatus()));
    assertThat(ready(client.nodes().withName(second.name()).get()).getStatus())
        .isNotEqualTo("True");

    PausePods.createNamespace(client, "kn-it");
    Pod running = PausePods.createRunning(client, pod("p1", first, false));
    String ip = running.getStatus().getPodIP();
    String prefix = podCidr.substring(0, podCidr.lastIndexOf('.') + 1);
    assertThat(ip).startsWith(prefix);
    assertThat(running.getSpec().getVolumes())
        .anyMatch(v -> v.getName().startsWith("kube-api-access"));
    Path reservation = first.cniStateDir().resolve("networks").resolve(NETWORK).resolve(ip);
    assertThat(reservation).exists();

    client.pods().inNamespace("kn-it").withName("p1").withGracePeriod(0).delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> !Files.exists(reservation));

    for (KubeletNode node : List.of(first, second)) {
      String name = "host-" + node.name();
      PausePods.createRunning(client, pod(name, node, true));
    }
    try (Stream<Path> logs = Files.list(first.hostPath("/var/log/containers"))) {
      assertThat(logs).isNotEmpty();
    }
    client.namespaces().withName("kn-it").delete();
  }

  @Test
  void nodeCredentialsAreNarrowedByTheNodeAuthorizerAndNodeRestriction() {
    KubernetesClient client = cp.client();
    PausePods.createNamespace(client, "kn-authz");
    client
        .secrets()
        .inNamespace("kn-authz")
        .resource(
            new io.fabric8.kubernetes.api.model.SecretBuilder()
                .withNewMetadata()
                .withName("unrelated")
                .endMetadata()
                .build())
        .create();
    CommandResult whoami = asNode(first, "auth", "whoami", "-o", "jsonpath={.status.userInfo}");
    assertThat(whoami.stdout()).contains("system:node:" + first.name()).contains("system:nodes");
    assertThat(asNode(first, "get", "node", first.name()).ok()).isTrue();
    CommandResult secret = asNode(first, "-n", "kn-authz", "get", "secret", "unrelated");
    assertThat(secret.ok()).isFalse();
    assertThat(secret.stderr()).contains("Forbidden");
    CommandResult label = asNode(first, "label", "node", second.name(), "x=y");
    assertThat(label.ok()).isFalse();
    assertThat(label.stderr()).contains("Forbidden");
    client.namespaces().withName("kn-authz").delete();
  }

  private static CommandResult asNode(KubeletNode node, String... args) {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(ToolPaths.kubectl().toString());
    cmd.add("--kubeconfig=" + node.kubeconfig());
    cmd.add("--cache-dir=" + node.dir().resolve("kubectl-cache")); // not ~/.kube/cache
    cmd.addAll(List.of(args));
    return Commands.run(cmd);
  }

  private static NodeCondition ready(Node node) {
    return node.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .findFirst()
        .orElseThrow();
  }

  private static Pod pod(String name, KubeletNode node, boolean hostNetwork) {
    PodBuilder b = PausePods.on(node, "kn-it", name);
    if (hostNetwork) {
      b.editSpec()
          .withHostNetwork(true)
          .editFirstContainer()
          .addNewPort()
          .withContainerPort(19091)
          .withHostPort(19091)
          .endPort()
          .endContainer()
          .endSpec();
    }
    return b.build();
  }

  private static String conflist(String subnet) {
    return """
        {"cniVersion": "1.0.0", "name": "%s", "plugins": [
          {"type": "bridge", "bridge": "cni0", "isGateway": true,
           "ipam": {"type": "host-local", "ranges": [[{"subnet": "%s"}]]}}]}
        """
        .formatted(NETWORK, subnet);
  }
}
