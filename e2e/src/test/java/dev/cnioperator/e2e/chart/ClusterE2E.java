package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import dev.cnioperator.testkit.images.ProductImages;
import dev.cnioperator.testkit.images.ProductImages.ProductImage;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The product as its users run it, on two real nodes ({@link KubeletCluster}: a kubelet and a
 * containerd each, no kube-proxy): the images the test command built, imported into each node's
 * containerd, {@code helm install} of the chart, and pods networked by conflists the agent wrote.
 *
 * <p>Bootstrap: the Nodes start NotReady (no CNI configuration); the operator (hostNetwork,
 * tolerating not-ready nodes) and the agents start and reach the API server through the {@code
 * apiServer} values, since no Service routing exists; one bridge network, whose host-local range is
 * each node's own podCIDR ({@code $(node.hostLocalRanges)}), makes both Nodes Ready; pause pods
 * spread over the nodes get addresses from their own node's podCIDR and pods on one node reach each
 * other. Uninstall (after Bootstrap, on what it left running): {@code helm uninstall} removes the
 * product's workloads and leaves the conflists, so a new pod still starts.
 *
 * <p>Each phase's duration is printed ({@code event=cluster-e2e}); nothing here asserts a time.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterE2E {
  private static final Duration ROLLOUT = Duration.ofMinutes(4);

  /** Each node's bridge; no other test uses this name. */
  private static final String BRIDGE = "cbboot0";

  private static final Map<String, Long> phases = new LinkedHashMap<>();
  private static long started;
  private static long phaseStart;
  private static KubeletCluster cluster;
  private static LocalControlPlane cp;
  private static ChartRelease release;
  private static String apps;
  private static boolean bootstrapped;

  @BeforeAll
  static void startCluster() {
    started = System.nanoTime();
    phaseStart = started;
    ProductImage operator = ProductImages.operator();
    ProductImage agent = ProductImages.agent();
    cluster = KubeletCluster.start(2);
    cp = cluster.controlPlane();
    phase("cluster-start");
    cluster.importImage(operator.tarball());
    cluster.importImage(agent.tarball());
    phase("image-import");
  }

  @AfterAll
  static void stopCluster() {
    try {
      if (release != null) {
        release.close();
      }
    } finally {
      if (cluster != null) {
        cluster.close();
      }
      phase("cleanup");
      System.out.printf(
          "event=cluster-e2e phases=%s total_ms=%d%n",
          phases, (System.nanoTime() - started) / 1_000_000);
    }
  }

  @Test
  @Order(1)
  void bootstrapHelmInstallMakesNotReadyNodesReadyAndPodsGetTheirNodesPodCidr() {
    KubernetesClient client = cp.client();
    awaitEveryNodesReadyCondition(
        "before any conflist",
        c -> assertThat(c.getMessage()).contains("cni plugin not initialized"));
    phaseStart = System.nanoTime();

    release = ChartRelease.install(cp, "boot", installValues());
    phase("helm-install");
    Map<String, String> podCidrs = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      String cidr = client.nodes().withName(node.name()).get().getSpec().getPodCIDR();
      assertThat(cidr).as("podCIDR of %s", node.name()).startsWith("10.232.").endsWith("/24");
      podCidrs.put(node.name(), cidr);
    }
    // One network for the whole cluster; each node's range is its own podCIDR.
    cp.kubectlWithInput(NETWORK, "apply", "-f", "-").orThrow("kubectl apply of the pod network");
    // The agent is ready once its node's conflists are written, so the networks come first.
    String fullname = release.name() + "-cni-operator";
    rollout("daemonset/" + fullname + "-agent");
    rollout("deployment/" + fullname + "-operator");
    phase("rollout");
    awaitEveryNodesReadyCondition(
        "after its network was applied", c -> assertThat(c.getStatus()).isEqualTo("True"));
    for (KubeletNode node : cluster.nodes()) {
      assertThat(confFiles(node)).as("conf dir of %s", node.name()).hasSize(1);
    }
    phase("nodes-ready");

    apps = TestNames.unique("apps");
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(apps).endMetadata().build())
        .create();
    // ServiceAccount admission is on: a pod needs its namespace's default account first.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.serviceAccounts().inNamespace(apps).withName("default").get() != null);
    client.apps().deployments().inNamespace(apps).resource(pauseDeployment(4)).create();
    List<Pod> pods = awaitRunningPods(client, 4);
    phase("pods-running");

    Map<String, List<Pod>> byNode =
        pods.stream().collect(Collectors.groupingBy(p -> p.getSpec().getNodeName()));
    assertThat(byNode.keySet()).containsExactlyInAnyOrderElementsOf(podCidrs.keySet());
    for (Pod pod : pods) {
      String cidr = podCidrs.get(pod.getSpec().getNodeName());
      assertThat(pod.getStatus().getPodIP())
          .as("IP of %s on %s (podCIDR %s)", name(pod), pod.getSpec().getNodeName(), cidr)
          .startsWith(cidr.substring(0, cidr.lastIndexOf('.') + 1));
    }
    for (KubeletNode node : cluster.nodes()) {
      List<Pod> onNode = byNode.get(node.name());
      assertThat(onNode).as("pods on %s", node.name()).hasSize(2);
      assertThat(tcpAnswer(node, onNode.get(0), onNode.get(1)))
          .as("TCP from %s to %s on %s", name(onNode.get(0)), name(onNode.get(1)), node.name())
          .isEqualTo("pong");
    }
    phase("pod-to-pod");
    bootstrapped = true;
  }

  @Test
  @Order(2)
  void uninstallRemovesTheWorkloadsAndLeavesTheConflistsSoNewPodsStillStart() {
    assertThat(bootstrapped).as("the Bootstrap scenario ran first and passed").isTrue();
    KubernetesClient client = cp.client();
    Map<KubeletNode, List<String>> before = new LinkedHashMap<>();
    for (KubeletNode node : cluster.nodes()) {
      before.put(node, confFiles(node));
    }
    phaseStart = System.nanoTime();

    CommandResult uninstall = release.uninstall();
    assertThat(uninstall.exitCode()).as("helm uninstall: %s", uninstall.stderr()).isZero();
    String ns = release.namespace();
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              assertThat(client.apps().daemonSets().inNamespace(ns).list().getItems()).isEmpty();
              assertThat(client.apps().deployments().inNamespace(ns).list().getItems()).isEmpty();
              assertThat(client.pods().inNamespace(ns).list().getItems()).isEmpty();
            });
    phase("uninstall");

    for (KubeletNode node : cluster.nodes()) {
      assertThat(confFiles(node))
          .as("conflists on %s after helm uninstall", node.name())
          .containsExactlyElementsOf(before.get(node));
      assertThat(ready(client.nodes().withName(node.name()).get()).getStatus()).isEqualTo("True");
    }
    KubeletNode first = cluster.nodes().get(0);
    String cidr = client.nodes().withName(first.name()).get().getSpec().getPodCIDR();
    Pod late =
        client
            .pods()
            .inNamespace(apps)
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("after-uninstall")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(first.name())
                    .withTerminationGracePeriodSeconds(0L)
                    .withContainers(pauseContainer())
                    .endSpec()
                    .build())
            .create();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(() -> running(client.pods().inNamespace(apps).withName(name(late)).get()));
    assertThat(client.pods().inNamespace(apps).withName(name(late)).get().getStatus().getPodIP())
        .startsWith(cidr.substring(0, cidr.lastIndexOf('.') + 1));
    assertThat(
            client.pods().inNamespace(apps).withLabel("app", "pause").list().getItems().stream()
                .filter(ClusterE2E::running))
        .as("the Deployment's pods keep running")
        .hasSize(4);
    phase("pod-after-uninstall");
  }

  /**
   * The chart's default images (imported, never pulled), the API server through the node bridge's
   * proxy (no kube-proxy, so no Service routing), the nodes' CRI socket, and the agent's state dir
   * in each node's own {@code /opt} (the nodes share the host's {@code /var/lib}).
   */
  private static String[] installValues() {
    URI api = URI.create(cluster.bridge().apiServerUrl());
    return new String[] {
      "--set", "operator.image.pullPolicy=Never",
      "--set", "agent.image.pullPolicy=Never",
      "--set-string", "apiServer.host=" + api.getHost(),
      "--set", "apiServer.port=" + api.getPort(),
      "--set", "agent.criSocket.enabled=true",
      "--set-string", "agent.criSocket.path=" + KubeletNode.CRI_SOCKET,
      "--set-string", "agent.hostPaths.stateDir=/opt/cni-operator/state",
    };
  }

  private static void rollout(String workload) {
    CommandResult status =
        cp.kubectl(
            ROLLOUT.plusSeconds(30),
            "-n",
            release.namespace(),
            "rollout",
            "status",
            workload,
            "--timeout=" + ROLLOUT.toSeconds() + "s");
    assertThat(status.exitCode())
        .as(
            "kubectl rollout status %s: %s%s\npods:\n%s\nlogs:\n%s",
            workload,
            status.stdout(),
            status.stderr(),
            cp.kubectl("-n", release.namespace(), "get", "pods", "-o", "wide").stdout(),
            containerLogs(release.namespace()))
        .isZero();
  }

  /**
   * The last lines of every container log of {@code namespace} on every node, read from the nodes'
   * {@code /var/log/pods} (kubectl logs needs a kubelet client certificate the API server lacks).
   */
  private static String containerLogs(String namespace) {
    StringBuilder out = new StringBuilder();
    for (KubeletNode node : cluster.nodes()) {
      Path pods = node.hostPath("/var/log/pods");
      if (!Files.isDirectory(pods)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(pods)) {
        for (Path log :
            files
                .filter(f -> f.toString().endsWith(".log"))
                .filter(f -> pods.relativize(f).toString().startsWith(namespace + "_"))
                .sorted()
                .toList()) {
          List<String> lines = Files.readAllLines(log);
          out.append("== ")
              .append(node.name())
              .append(' ')
              .append(pods.relativize(log))
              .append('\n');
          lines
              .subList(Math.max(0, lines.size() - 25), lines.size())
              .forEach(l -> out.append(l).append('\n'));
        }
      } catch (IOException e) {
        out.append("(cannot read ").append(pods).append(": ").append(e).append(")\n");
      }
    }
    return out.toString();
  }

  /**
   * The pod network: a bridge on every node, host-local addresses from each node's own podCIDR
   * (kube-controller-manager's --allocate-node-cidrs), rendered per node by the operator.
   */
  private static final String NETWORK =
      """
      apiVersion: cnioperator.dev/v1alpha1
      kind: CniNetwork
      metadata:
        name: boot
      spec:
        cniVersion: "1.0.0"
        priority: 10
        plugins:
          - type: bridge
            bridge: %s
            isGateway: true
            ipam:
              type: host-local
              ranges: "$(node.hostLocalRanges)"
      """
          .formatted(BRIDGE);

  private static io.fabric8.kubernetes.api.model.apps.Deployment pauseDeployment(int replicas) {
    Map<String, String> labels = Map.of("app", "pause");
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName("pause")
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .withMatchLabels(labels)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withTerminationGracePeriodSeconds(0L)
        .addNewTopologySpreadConstraint()
        .withMaxSkew(1)
        .withTopologyKey("kubernetes.io/hostname")
        .withWhenUnsatisfiable("DoNotSchedule")
        .withNewLabelSelector()
        .withMatchLabels(labels)
        .endLabelSelector()
        .endTopologySpreadConstraint()
        .withContainers(pauseContainer())
        .endSpec()
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The fixture's pause image, imported into every node, never pulled. */
  private static Container pauseContainer() {
    return new ContainerBuilder()
        .withName("pause")
        .withImage(ContainerdFixture.PAUSE_IMAGE)
        .withImagePullPolicy("Never")
        .build();
  }

  private static List<Pod> awaitRunningPods(KubernetesClient client, int count) {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                client.pods().inNamespace(apps).withLabel("app", "pause").list().getItems().stream()
                        .filter(ClusterE2E::running)
                        .count()
                    == count);
    return client.pods().inNamespace(apps).withLabel("app", "pause").list().getItems();
  }

  private static boolean running(Pod p) {
    return p != null
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase())
        && p.getStatus().getPodIP() != null;
  }

  /**
   * Real traffic between two pods of {@code node}: a one-shot TCP listener in {@code to}'s network
   * namespace answers a client in {@code from}'s (perl, because this machine may have neither ping
   * nor nc). The namespaces are found through the node's containerd ({@code crictl inspectp}).
   */
  private static String tcpAnswer(KubeletNode node, Pod from, Pod to) {
    String listener =
        "alarm 30; my $s = IO::Socket::INET->new(LocalPort => 18082, Listen => 1, ReuseAddr => 1)"
            + " or die $!; my $c = $s->accept; print $c \"pong\\n\";";
    node.exec(
            "sh",
            "-c",
            "nsenter --net=\"$1\" perl -MIO::Socket::INET -e \"$2\" >/dev/null 2>&1 &",
            "sh",
            netns(node, to),
            listener)
        .orThrow("start a listener in " + name(to));
    String client =
        "alarm 5; my $c = IO::Socket::INET->new(PeerAddr => '"
            + to.getStatus().getPodIP()
            + "', PeerPort => 18082, Timeout => 2) or die \"connect: $!\"; print scalar <$c>;";
    String fromNetns = netns(node, from);
    String[] answer = {""};
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              CommandResult r =
                  node.exec(
                      "nsenter", "--net=" + fromNetns, "perl", "-MIO::Socket::INET", "-e", client);
              answer[0] = r.stdout().trim();
              return r.ok();
            });
    return answer[0];
  }

  /** The network namespace path of {@code pod}'s sandbox, as the node sees it. */
  private static String netns(KubeletNode node, Pod pod) {
    String id =
        node.containerd()
            .crictl(
                "pods",
                "-q",
                "--state",
                "ready",
                "--namespace",
                pod.getMetadata().getNamespace(),
                "--name",
                "^" + name(pod) + "$")
            .orThrow("crictl pods " + name(pod))
            .stdout()
            .strip();
    assertThat(id).as("the ready sandbox of %s", name(pod)).isNotEmpty().doesNotContain("\n");
    try {
      JsonNode info =
          new ObjectMapper()
              .readTree(node.containerd().crictl("inspectp", id).orThrow("inspectp").stdout());
      for (JsonNode ns : info.at("/info/runtimeSpec/linux/namespaces")) {
        if (ns.path("type").asText().equals("network")) {
          return ns.path("path").asText();
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("crictl inspectp " + id + " is not JSON", e);
    }
    throw new IllegalStateException("the sandbox of " + name(pod) + " names no network namespace");
  }

  /** The configuration files in the node's conf dir (conflists, not our temporary files). */
  private static List<String> confFiles(KubeletNode node) {
    try (Stream<Path> files = Files.list(node.cniConfDir())) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".conflist") || n.endsWith(".conf") || n.endsWith(".json"))
          .sorted()
          .collect(Collectors.toCollection(ArrayList::new));
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + node.cniConfDir(), e);
    }
  }

  /** Waits until the Ready condition of every Node satisfies {@code check}. */
  private static void awaitEveryNodesReadyCondition(String when, Consumer<NodeCondition> check) {
    for (KubeletNode node : cluster.nodes()) {
      await("the Ready condition of Node " + node.name() + " " + when)
          .atMost(Duration.ofSeconds(120))
          .untilAsserted(
              () -> check.accept(ready(cp.client().nodes().withName(node.name()).get())));
    }
  }

  private static NodeCondition ready(Node node) {
    return node.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("Ready"))
        .findFirst()
        .orElseThrow();
  }

  private static String name(Pod pod) {
    return pod.getMetadata().getName();
  }

  private static void phase(String name) {
    long now = System.nanoTime();
    phases.put(name, (now - phaseStart) / 1_000_000);
    phaseStart = now;
  }
}
