package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.HostLocalStore;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.containerd.ContainerdFixture;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a {@link KubeletNode} holds for its pods, read on the node itself: their sandboxes and
 * network namespaces (through the node's containerd), the CNI files in its conf dir, host-local's
 * reservations, and real TCP traffic between two of its pods.
 */
final class NodePods {
  private NodePods() {}

  /** Whether {@code p} runs and has its address. */
  /** Whether {@code node} carries a taint of {@code key}, whatever its effect. */
  static boolean hasTaint(Node node, String key) {
    return node.getSpec() != null
        && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> key.equals(t.getKey()));
  }

  static boolean running(Pod p) {
    return p != null
        && p.getStatus() != null
        && "Running".equals(p.getStatus().getPhase())
        && p.getStatus().getPodIP() != null;
  }

  /** The running pods of {@code namespace} on {@code node}, none of them terminating. */
  static List<Pod> runningPods(KubernetesClient client, String namespace, KubeletNode node) {
    return client.pods().inNamespace(namespace).list().getItems().stream()
        .filter(NodePods::running)
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> node.name().equals(p.getSpec().getNodeName()))
        .toList();
  }

  /**
   * A namespace of its own ({@link #appsNamespace}) with a {@link #pauseDeployment} of {@code
   * count} pods, returned once they all run.
   */
  static String startPausePods(KubernetesClient client, int count) {
    String namespace = appsNamespace(client);
    client
        .apps()
        .deployments()
        .inNamespace(namespace)
        .resource(pauseDeployment(count, Map.of()))
        .create();
    awaitRunningPods(client, namespace, count);
    return namespace;
  }

  /**
   * Waits (2 minutes at most) until {@code count} pods of {@link #pauseDeployment} run in {@code
   * namespace}, and returns its pods.
   */
  static List<Pod> awaitRunningPods(KubernetesClient client, String namespace, int count) {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                client
                        .pods()
                        .inNamespace(namespace)
                        .withLabel("app", "pause")
                        .list()
                        .getItems()
                        .stream()
                        .filter(NodePods::running)
                        .count()
                    == count);
    return client.pods().inNamespace(namespace).withLabel("app", "pause").list().getItems();
  }

  /**
   * Every node's CniNode status counts as many attachments of {@code network}, all healthy, as the
   * node runs pods of {@code namespace}.
   */
  static void assertAttachmentsHealthyAsRunningPods(
      KubernetesClient client, List<KubeletNode> nodes, String namespace, String network) {
    for (KubeletNode node : nodes) {
      int pods = runningPods(client, namespace, node).size();
      CniNode cniNode = client.resources(CniNode.class).withName(node.name()).get();
      assertThat(cniNode.getStatus()).as("status of CniNode %s", node.name()).isNotNull();
      AttachmentSummary a =
          cniNode
              .getStatus()
              .network(network)
              .orElseThrow(() -> new AssertionError(node.name() + " reports no " + network))
              .getAttachments();
      assertThat(a).as("attachments on %s", node.name()).isNotNull();
      assertThat(a.getTotal()).as("attachments on %s", node.name()).isEqualTo(pods);
      assertThat(a.getHealthy()).as("healthy attachments on %s", node.name()).isEqualTo(pods);
    }
  }

  /** The ids of the ready sandboxes (network still set up) of {@code namespace} on the node. */
  static List<String> readySandboxes(KubeletNode node, String namespace) {
    return node.runtime()
        .crictl("pods", "-q", "--state", "ready", "--namespace", namespace)
        .orThrow("crictl pods --namespace " + namespace)
        .stdout()
        .lines()
        .filter(l -> !l.isBlank())
        .toList();
  }

  /** The id of {@code pod}'s ready sandbox in the node's runtime. */
  static String sandboxId(KubeletNode node, Pod pod) {
    String id =
        node.runtime()
            .crictl(
                "pods",
                "-q",
                "--state",
                "ready",
                "--namespace",
                pod.getMetadata().getNamespace(),
                "--name",
                "^" + pod.getMetadata().getName() + "$")
            .orThrow("crictl pods " + pod.getMetadata().getName())
            .stdout()
            .strip();
    assertThat(id)
        .as("the ready sandbox of %s", pod.getMetadata().getName())
        .isNotEmpty()
        .doesNotContain("\n");
    return id;
  }

  /** The network namespace path of {@code pod}'s sandbox, as the node sees it. */
  static String netns(KubeletNode node, Pod pod) {
    String id = sandboxId(node, pod);
    try {
      JsonNode info =
          new ObjectMapper()
              .readTree(node.runtime().crictl("inspectp", id).orThrow("inspectp").stdout());
      for (JsonNode ns : info.at("/info/runtimeSpec/linux/namespaces")) {
        if (ns.path("type").asText().equals("network")) {
          return ns.path("path").asText();
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("crictl inspectp " + id + " is not JSON", e);
    }
    throw new IllegalStateException(
        "the sandbox of " + pod.getMetadata().getName() + " names no network namespace");
  }

  /** Runs {@code command} on the node inside {@code pod}'s network namespace. */
  static CommandResult inPodNetwork(KubeletNode node, Pod pod, String... command) {
    List<String> full = new ArrayList<>(List.of("nsenter", "--net=" + netns(node, pod)));
    full.addAll(List.of(command));
    return node.exec(full.toArray(String[]::new));
  }

  /**
   * Real traffic between two pods of {@code node}: a one-shot TCP listener in {@code to}'s network
   * namespace answers a client in {@code from}'s (perl, because this machine may have neither ping
   * nor nc). Returns what the client read.
   */
  static String tcpAnswer(KubeletNode node, Pod from, Pod to) {
    return tcpAnswer(node, from, node, to, to.getStatus().getPodIP());
  }

  /**
   * Real traffic to {@code toIp}, an address of {@code to} on {@code toNode}, from {@code from} on
   * {@code fromNode} (the same node, or another).
   */
  static String tcpAnswer(KubeletNode fromNode, Pod from, KubeletNode toNode, Pod to, String toIp) {
    String listener =
        "alarm 30; my $s = IO::Socket::INET->new(LocalPort => 18082, Listen => 1, ReuseAddr => 1)"
            + " or die $!; my $c = $s->accept; print $c \"pong\\n\";";
    toNode
        .exec(
            "sh",
            "-c",
            "nsenter --net=\"$1\" perl -MIO::Socket::INET -e \"$2\" >/dev/null 2>&1 &",
            "sh",
            netns(toNode, to),
            listener)
        .orThrow("start a listener in " + to.getMetadata().getName());
    String client =
        "alarm 5; my $c = IO::Socket::INET->new(PeerAddr => '"
            + toIp
            + "', PeerPort => 18082, Timeout => 2) or die \"connect: $!\"; print scalar <$c>;";
    String fromNetns = netns(fromNode, from);
    String[] answer = {""};
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .until(
            () -> {
              CommandResult r =
                  fromNode.exec(
                      "nsenter", "--net=" + fromNetns, "perl", "-MIO::Socket::INET", "-e", client);
              answer[0] = r.stdout().trim();
              return r.ok();
            });
    return answer[0];
  }

  /** The configuration files in the node's conf dir (conflists, not our temporary files). */
  static List<String> confFiles(KubeletNode node) {
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

  /**
   * The {@code type} of each plugin in {@code file} of the node's conf dir, in order; empty while
   * the file is missing or not whole (another product may be writing it).
   */
  static List<String> pluginTypes(KubeletNode node, String file) {
    List<String> types = new ArrayList<>();
    try {
      new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(Files.readString(node.cniConfDir().resolve(file)))
          .get("plugins")
          .forEach(p -> types.add(p.get("type").asText()));
    } catch (IOException | RuntimeException notWhole) {
      return List.of();
    }
    return types;
  }

  /** The bytes of {@code file} in the node's conf dir. */
  static byte[] confFile(KubeletNode node, String file) {
    try {
      return Files.readAllBytes(node.cniConfDir().resolve(file));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file + " on " + node.name(), e);
    }
  }

  /** The addresses host-local holds for {@code network} on the node (its store's files). */
  static Set<String> reservations(KubeletNode node, String network) {
    return new TreeSet<>(
        HostLocalStore.reservedIps(node.cniStateDir().resolve("networks").resolve(network)));
  }

  /** A pause pod of the fixture's image (imported, never pulled) bound to {@code node} by name. */
  static Pod pinnedPausePod(String name, KubeletNode node) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node.name())
        .withTerminationGracePeriodSeconds(0L)
        .withContainers(pauseContainer(node))
        .endSpec()
        .build();
  }

  /**
   * A Deployment "pause" of {@code replicas} pause pods spread evenly over the nodes (at most one
   * more on any node), its pods annotated with {@code podAnnotations}.
   */
  static Deployment pauseDeployment(int replicas, Map<String, String> podAnnotations) {
    return deployment(
        "pause",
        replicas,
        podAnnotations,
        new PodSpecBuilder()
            .withTerminationGracePeriodSeconds(0L)
            .addNewTopologySpreadConstraint()
            .withMaxSkew(1)
            .withTopologyKey("kubernetes.io/hostname")
            .withWhenUnsatisfiable("DoNotSchedule")
            .withNewLabelSelector()
            .withMatchLabels(Map.of("app", "pause"))
            .endLabelSelector()
            .endTopologySpreadConstraint()
            .withContainers(pauseContainer())
            .build());
  }

  /**
   * A Deployment {@code name} of {@code replicas} pods of {@code spec}, labelled {@code app:
   * <name>}, annotated with {@code podAnnotations}.
   */
  static Deployment deployment(
      String name, int replicas, Map<String, String> podAnnotations, PodSpec spec) {
    Map<String, String> labels = Map.of("app", name);
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .withMatchLabels(labels)
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(labels)
        .withAnnotations(podAnnotations)
        .endMetadata()
        .withSpec(spec)
        .endTemplate()
        .endSpec()
        .build();
  }

  /** The fixture's pause image, imported into every containerd node, never pulled. */
  static Container pauseContainer() {
    return new ContainerBuilder()
        .withName("pause")
        .withImage(ContainerdFixture.PAUSE_IMAGE)
        .withImagePullPolicy("Never")
        .build();
  }

  /**
   * The pause image of {@code node}'s runtime: imported into containerd, pulled by CRI-O from the
   * cluster's registry.
   */
  static Container pauseContainer(KubeletNode node) {
    return new ContainerBuilder()
        .withName("pause")
        .withImage(node.runtime().pauseImage())
        .withImagePullPolicy("IfNotPresent")
        .build();
  }

  /**
   * A namespace of the test's own, named uniquely from "apps", once pods can be created in it
   * (ServiceAccount admission is on: a pod needs its namespace's default account first).
   */
  static String appsNamespace(KubernetesClient client) {
    String apps = TestNames.unique("apps");
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(apps).endMetadata().build())
        .create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.serviceAccounts().inNamespace(apps).withName("default").get() != null);
    return apps;
  }
}
