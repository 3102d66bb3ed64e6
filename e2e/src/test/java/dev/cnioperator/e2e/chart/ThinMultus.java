package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.HostLocalStore;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Multus on a {@link KubeletCluster} as a Multus user runs it, for the tests of secondary networks:
 * Multus 4.2.2's thin plugin (built from the Go module proxy) as each node's first configuration,
 * delegating to a pod network of the product's, the real NetworkAttachmentDefinition CRD, and an
 * "L2 segment" for macvlan: a bridge of the test's joining one veth per node, whose node end is
 * renamed to that node's uplink name ({@code eth1}, {@code ens5f0}: names differ, as on nodes of
 * two hardware generations) and labelled on the Node ({@value #UPLINK_LABEL}).
 *
 * <p>{@link #prepare} before the product is installed (the CRD, the segment), {@link #install} once
 * the pod network's file is on every node, {@link #close} removes the segment.
 */
final class ThinMultus implements AutoCloseable {
  static final String UPLINK_LABEL = "e2e.cnioperator.dev/uplink";
  static final String CONF_DIR = "/etc/cni/multus/net.d";
  static final String FILE = "00-multus.conflist";
  static final ResourceDefinitionContext NAD =
      new ResourceDefinitionContext.Builder()
          .withGroup("k8s.cni.cncf.io")
          .withVersion("v1")
          .withPlural("network-attachment-definitions")
          .withKind("NetworkAttachmentDefinition")
          .withNamespaced(true)
          .build();

  /** Each node's uplink, by node index. */
  private static final List<String> UPLINKS = List.of("eth1", "ens5f0", "enp3s0");

  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubeletCluster cluster;
  private final String podNetworkFile;
  private final List<String> hostEnds = new ArrayList<>();
  private String segment;

  private ThinMultus(KubeletCluster cluster, String podNetworkFile) {
    this.cluster = cluster;
    this.podNetworkFile = podNetworkFile;
  }

  /**
   * The NetworkAttachmentDefinition CRD and the segment, every node's uplink labelled; Multus will
   * delegate to the pod network in {@code podNetworkFile}. Nothing is left if it fails.
   */
  static ThinMultus prepare(KubeletCluster cluster, String podNetworkFile) {
    ThinMultus multus = new ThinMultus(cluster, podNetworkFile);
    try {
      cluster
          .controlPlane()
          .kubectl("apply", "-f", ToolPaths.multusDir().resolve("networks-crd.yaml").toString())
          .orThrow("kubectl apply of the NetworkAttachmentDefinition CRD");
      multus.makeUplinks();
      return multus;
    } catch (RuntimeException | Error e) {
      multus.close();
      throw e;
    }
  }

  /** The uplink name of {@code node}, its label's value. */
  String uplink(KubeletNode node) {
    return UPLINKS.get(cluster.nodes().indexOf(node));
  }

  /**
   * Multus's thin plugin on every node, as its thin installer sets it up: the binary in the node's
   * bin dir, a kubeconfig for a ServiceAccount with the RBAC Multus needs, and its configuration as
   * the node's first file, delegating to the pod network's file.
   */
  void install() throws IOException {
    LocalControlPlane cp = cluster.controlPlane();
    cp.kubectlWithInput(RBAC, "apply", "-f", "-").orThrow("apply Multus's RBAC");
    String token = cp.serviceAccountToken("kube-system", "multus", Duration.ofHours(2));
    String ca =
        Base64.getEncoder()
            .encodeToString(
                Files.readAllBytes(Path.of(cp.client().getConfiguration().getCaCertFile())));
    String kubeconfig =
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster: {server: "%s", certificate-authority-data: "%s"}
        users:
        - name: multus
          user: {token: "%s"}
        contexts:
        - name: local
          context: {cluster: local, user: multus}
        current-context: local
        """
            .formatted(cluster.bridge().apiServerUrl(), ca, token);
    for (KubeletNode node : cluster.nodes()) {
      Path bin = node.hostPath("/opt/cni/bin/multus");
      Files.copy(ToolPaths.multusDir().resolve("multus"), bin, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
      Path dir = node.cniConfDir().resolve("multus.d");
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("multus.kubeconfig"), kubeconfig);
      writeConf(node);
    }
  }

  /** Multus's file, with the node's pod network copied in as it is now, as its installer does. */
  void writeConf(KubeletNode node) throws IOException {
    Path temp = node.cniConfDir().resolve(".multus.tmp");
    Files.writeString(
        temp,
        CONF.formatted(
            JSON.readTree(node.cniConfDir().resolve(podNetworkFile).toFile()).toString(),
            podNetworkFile));
    Files.move(temp, node.cniConfDir().resolve(FILE), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Copies Multus's log of every node into {@code dir/<node>.log}. */
  void keepLogs(Path dir) {
    for (KubeletNode node : cluster.nodes()) {
      try {
        Files.createDirectories(dir);
        Path log = node.hostPath("/var/log/multus.log");
        if (Files.exists(log)) {
          Files.copy(log, dir.resolve(node.name() + ".log"), StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        System.out.printf("event=multus-log-not-kept node=%s error=%s%n", node.name(), e);
      }
    }
  }

  /**
   * Removes the segment: the bridge and the host ends of the veths (the node ends go with them).
   */
  @Override
  public void close() {
    for (String end : hostEnds) {
      Commands.run("ip", "link", "del", end);
    }
    hostEnds.clear();
    if (segment != null) {
      Commands.run("ip", "link", "del", segment);
      segment = null;
    }
  }

  /**
   * A macvlan network on each node's uplink (from its label), host-local on each node's slice of
   * {@code subnet}, for pods of {@code namespace} through Multus, with {@code macvlanLines} added
   * to its macvlan plugin.
   */
  static String macvlanNetwork(
      String name, int priority, String namespace, String subnet, String macvlanLines) {
    return """
        apiVersion: cnioperator.dev/v1alpha1
        kind: CniNetwork
        metadata:
          name: %1$s
        spec:
          cniVersion: "1.0.0"
          priority: %2$d
          attachment:
            multus:
              namespaces: [%3$s]
          nodeSlices:
            subnet: %4$s
            prefixLength: 26
          plugins:
            - type: macvlan
              master: "$(node.labels[%5$s])"
              mode: bridge
        %6$s      ipam:
                type: host-local
                ranges:
                  - - subnet: %4$s
                      rangeStart: "$(node.slice.rangeStart)"
                      rangeEnd: "$(node.slice.rangeEnd)"
          check: {intervalSeconds: 5}
          ipamCleanup: {gracePeriodSeconds: 30}
        """
        .formatted(name, priority, namespace, subnet, UPLINK_LABEL, macvlanLines);
  }

  /**
   * Creates a {@link NodePods#pauseDeployment} of {@code count} pods in {@code namespace}, each
   * asking Multus for {@code network} as well.
   */
  static void createPausePods(
      KubernetesClient client, String namespace, int count, String network) {
    client
        .apps()
        .deployments()
        .inNamespace(namespace)
        .resource(NodePods.pauseDeployment(count, Map.of("k8s.v1.cni.cncf.io/networks", network)))
        .create();
  }

  /** Multus's entry for {@code iface} in the pod's network-status annotation. */
  static JsonNode networkStatus(Pod pod, String iface) {
    String name = pod.getMetadata().getName();
    String text =
        pod.getMetadata().getAnnotations() == null
            ? null
            : pod.getMetadata().getAnnotations().get("k8s.v1.cni.cncf.io/network-status");
    assertThat(text).as("network-status of %s", name).isNotNull();
    try {
      for (JsonNode entry : JSON.readTree(text)) {
        if (iface.equals(entry.path("interface").asText())) {
          return entry;
        }
      }
    } catch (IOException e) {
      throw new AssertionError("network-status of " + name + " is not JSON: " + text, e);
    }
    throw new AssertionError("network-status of " + name + " has no " + iface + ": " + text);
  }

  /** The first address of {@code iface} in the pod's network-status annotation. */
  static String address(Pod pod, String iface) {
    return networkStatus(pod, iface).path("ips").path(0).asText();
  }

  /** The addresses host-local holds for {@code network} on {@code node}. */
  static Set<String> reservations(KubeletNode node, String network) {
    return new TreeSet<>(
        HostLocalStore.reservedIps(node.cniStateDir().resolve("networks").resolve(network)));
  }

  private void makeUplinks() {
    String tag = Long.toString(ProcessHandle.current().pid() % 10000);
    segment = "mvseg" + tag;
    Commands.run("ip", "link", "add", segment, "type", "bridge").orThrow("add " + segment);
    Commands.run("ip", "link", "set", segment, "up").orThrow("up " + segment);
    for (int i = 0; i < cluster.nodes().size(); i++) {
      KubeletNode node = cluster.nodes().get(i);
      String hostEnd = "mvh" + i + "x" + tag;
      String nodeEnd = "mvn" + i + "x" + tag;
      Commands.run("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", nodeEnd)
          .orThrow("add veth " + hostEnd);
      hostEnds.add(hostEnd);
      Commands.run("ip", "link", "set", hostEnd, "master", segment, "up").orThrow("enslave");
      Commands.run("ip", "link", "set", nodeEnd, "netns", node.networkNamespace())
          .orThrow("move " + nodeEnd);
      Commands.run(
              "ip", "-n", node.networkNamespace(), "link", "set", nodeEnd, "name", UPLINKS.get(i))
          .orThrow("rename to " + UPLINKS.get(i));
      Commands.run("ip", "-n", node.networkNamespace(), "link", "set", UPLINKS.get(i), "up")
          .orThrow("up " + UPLINKS.get(i));
      node.label(UPLINK_LABEL, UPLINKS.get(i));
    }
  }

  /**
   * Multus's thin configuration, as its thin installer writes it: the node's pod network copied
   * into {@code delegates}, and nothing before the pod network's file exists. Not {@code
   * clusterNetwork} with the file's path: Multus 4.2.2 saves such a delegate for DEL re-marshalled
   * through its generic types, without the plugins' own keys (host-local's ranges), so every DEL of
   * the pod network fails ("no IP ranges specified").
   */
  private static final String CONF =
      """
      {"cniVersion": "1.0.0", "name": "multus-cni-network", "plugins": [{
        "type": "multus",
        "kubeconfig": "/etc/cni/net.d/multus.d/multus.kubeconfig",
        "delegates": [%s],
        "readinessindicatorfile": "/etc/cni/net.d/%s",
        "logLevel": "verbose",
        "logFile": "/var/log/multus.log"
      }]}
      """;

  /** What Multus's thin plugin needs of the API server, for its own ServiceAccount. */
  private static final String RBAC =
      """
      apiVersion: v1
      kind: ServiceAccount
      metadata: {name: multus, namespace: kube-system}
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRole
      metadata: {name: e2e-multus}
      rules:
        - apiGroups: ["k8s.cni.cncf.io"]
          resources: ["network-attachment-definitions"]
          verbs: ["get", "list", "watch"]
        - apiGroups: [""]
          resources: ["pods"]
          verbs: ["get"]
        - apiGroups: [""]
          resources: ["pods/status"]
          verbs: ["get", "update"]
        - apiGroups: ["", "events.k8s.io"]
          resources: ["events"]
          verbs: ["create", "patch", "update"]
      ---
      apiVersion: rbac.authorization.k8s.io/v1
      kind: ClusterRoleBinding
      metadata: {name: e2e-multus}
      roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: e2e-multus}
      subjects:
        - {kind: ServiceAccount, name: multus, namespace: kube-system}
      """;
}
