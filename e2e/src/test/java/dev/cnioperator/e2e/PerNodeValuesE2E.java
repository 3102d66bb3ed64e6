package dev.cnioperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.e2e.PodAttachments.PodAttachment;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.Condition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * One CniNetwork, a different conflist on every node: each node's host-local range is its own pod
 * CIDR and its bridge name is one of its labels. Three nodes hold three different files;
 * relabelling one rewrites only that node's file; a node without a pod CIDR fails alone and
 * converges once it gets one; pods in real network namespaces on two nodes get addresses from their
 * own node's range.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PerNodeValuesE2E {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final String BRIDGE_LABEL = "cnioperator.dev/e2e-bridge";

  private LocalControlPlane cp;
  private LocalProduct product;
  private Path work;
  private final String network = TestNames.unique("pernode");
  private final String file = "50-" + network + ".conflist";
  private final Map<String, SandboxNode> nodes = new LinkedHashMap<>();
  private final Map<String, String> cidrs = new LinkedHashMap<>();
  private final Map<String, String> bridges = new LinkedHashMap<>();
  private String late;
  private String podNamespace;

  @BeforeAll
  void installTheProduct() throws IOException {
    Prerequisites.requireRoot();
    cp = LocalControlPlane.shared();
    work = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "pernode-");
    product = LocalProduct.install(cp, work);
    for (String base : List.of("pna", "pnb", "pnc", "pnlate")) {
      String name = TestNames.unique(base);
      String bridge = TestNames.unique("pnbr");
      bridges.put(name, bridge);
      Map<String, String> labels = Map.of(BRIDGE_LABEL, bridge, "cnioperator.dev/e2e", network);
      if (base.equals("pnlate")) {
        late = name;
        product.createNode(name, labels, null);
      } else {
        cidrs.put(name, product.createNode(name, labels));
      }
    }
    product.startOperator("pernode-operator");
    for (String name : bridges.keySet()) {
      nodes.put(name, product.startAgent(name));
    }
    podNamespace = PodNamespaces.create(cp.client(), "pods");
  }

  @AfterAll
  void stopTheProduct() {
    if (cp != null) {
      cp.kubectl("delete", "cninetwork", network, "--ignore-not-found", "--timeout=60s");
    }
    if (product != null) {
      product.close();
    }
    if (cp != null && podNamespace != null) {
      cp.client().namespaces().withName(podNamespace).delete();
    }
    bridges.values().forEach(b -> Commands.run("ip", "link", "del", b));
  }

  @Test
  @Order(1)
  void threeNodesHoldThreeConflistsEachWithItsOwnRangeAndTheNodeWithoutAPodCidrFailsAlone() {
    cp.kubectlWithInput(networkYaml(), "apply", "-f", "-").orThrow("kubectl apply");

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (String name : cidrs.keySet()) {
                assertThat(nodes.get(name).conflist(file)).as(name).isPresent();
              }
            });
    for (String name : cidrs.keySet()) {
      JsonNode held = read(nodes.get(name).conflist(file).orElseThrow());
      assertThat(held.at("/plugins/0/ipam/ranges/0/0/subnet").textValue())
          .as("%s's range", name)
          .isEqualTo(cidrs.get(name));
      assertThat(held.at("/plugins/0/bridge").textValue()).isEqualTo(bridges.get(name));
      assertThat(held.at("/plugins/0/ipam/ranges").size()).isEqualTo(1);
    }
    assertThat(
            cidrs.keySet().stream()
                .map(n -> nodes.get(n).conflist(file).orElseThrow())
                .distinct()
                .count())
        .isEqualTo(3);
    // Each node's report carries the sha256 of what that node holds.
    for (String name : cidrs.keySet()) {
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(specEntry(name)).isPresent();
                assertThat(report(name)).isPresent();
                NodeNetwork spec = specEntry(name).orElseThrow();
                NodeNetworkStatus report = report(name).orElseThrow();
                assertThat(report.getState()).isEqualTo(NetworkState.Applied);
                assertThat(report.getAppliedSha256()).isEqualTo(spec.getSha256());
              });
    }

    // What a person reads: two nodes, one CniNetwork, two ranges.
    List<String> two = List.copyOf(cidrs.keySet()).subList(0, 2);
    System.out.println(
        cp.kubectl("get", "cninodes", two.get(0), two.get(1), "-o", "yaml")
            .orThrow("get")
            .stdout());

    // The late node: no file, Failed with a message naming it and the missing value.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(report(late)).isPresent();
              NodeNetworkStatus report = report(late).orElseThrow();
              assertThat(report.getState()).isEqualTo(NetworkState.Failed);
              assertThat(report.getMessage())
                  .contains("node " + late + " has no spec.podCIDR")
                  .contains("spec.plugins[0].ipam.ranges");
            });
    assertThat(specEntry(late).orElseThrow().getUnavailable()).contains(late);
    assertThat(nodes.get(late).conflist(file)).isEmpty();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(condition("Ready")).isPresent();
              Condition ready = condition("Ready").orElseThrow();
              assertThat(ready.getStatus()).isEqualTo("False");
              assertThat(ready.getReason()).isEqualTo("WaitingForNodeValues");
              assertThat(ready.getMessage()).startsWith("1 of 4 nodes").contains(late);
              assertThat(condition("Degraded").orElseThrow().getStatus()).isEqualTo("False");
            });
  }

  @Test
  @Order(2)
  void relabellingOneNodeRewritesOnlyThatNodesFile() throws IOException {
    List<String> names = List.copyOf(cidrs.keySet());
    String relabelled = names.get(1);
    Map<String, FileTime> mtimes = new LinkedHashMap<>();
    Map<String, String> contents = new LinkedHashMap<>();
    Map<String, String> versions = new LinkedHashMap<>();
    // The agents report their probe of the new content after it is applied (and after Ready):
    // a CniNode's resourceVersion is its own only once that report is in.
    await().atMost(WAIT).untilAsserted(() -> names.forEach(this::assertSettled));
    for (String name : names) {
      Path path = nodes.get(name).confDir().resolve(file);
      mtimes.put(name, Files.getLastModifiedTime(path));
      contents.put(name, Files.readString(path));
      versions.put(name, cniNode(name).getMetadata().getResourceVersion());
    }
    String newBridge = TestNames.unique("pnbr");
    cp.client()
        .nodes()
        .withName(relabelled)
        .edit(
            n -> {
              n.getMetadata().getLabels().put(BRIDGE_LABEL, newBridge);
              return n;
            });
    bridges.put(relabelled + "-new", newBridge);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(held(relabelled, "/plugins/0/bridge")).isEqualTo(newBridge));
    // Give the operator time to have touched the others, had it wanted to.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(report(relabelled).map(NodeNetworkStatus::getAppliedSha256))
                    .isEqualTo(specEntry(relabelled).map(NodeNetwork::getSha256)));
    for (String name : names) {
      if (name.equals(relabelled)) {
        continue;
      }
      Path path = nodes.get(name).confDir().resolve(file);
      assertThat(Files.readString(path)).as(name).isEqualTo(contents.get(name));
      assertThat(Files.getLastModifiedTime(path)).as(name).isEqualTo(mtimes.get(name));
      assertThat(cniNode(name).getMetadata().getResourceVersion())
          .as("%s's CniNode was not written", name)
          .isEqualTo(versions.get(name));
    }
  }

  @Test
  @Order(3)
  void theNodeWithoutAPodCidrConvergesOnceItIsSet() {
    String cidr = TestNames.podCidr();
    cp.client()
        .nodes()
        .withName(late)
        .edit(
            n -> {
              n.getSpec().setPodCIDR(cidr);
              n.getSpec().setPodCIDRs(List.of(cidr));
              return n;
            });
    cidrs.put(late, cidr);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(held(late, "/plugins/0/ipam/ranges/0/0/subnet")).isEqualTo(cidr));
    ClusterNetworks.on(cp).waitReady(network);
    assertThat(network().getStatus().getNodes().getReady()).isEqualTo("4/4");
  }

  @Test
  @Order(4)
  void podsOnTwoNodesGetAddressesFromTheirOwnNodesRange() {
    List<String> names = List.copyOf(cidrs.keySet()).subList(0, 2);
    for (String name : names) {
      try (PodAttachments pods = new PodAttachments(cp.client(), nodes.get(name), podNamespace)) {
        PodAttachment pod = pods.addWithLibrary(TestNames.unique("pod"), file);
        String address = pod.netns().exec("ip", "-4", "-o", "addr", "show", "dev", "eth0");
        String prefix = cidrs.get(name).substring(0, cidrs.get(name).lastIndexOf('.') + 1);
        assertThat(address).as("%s's pod", name).contains("inet " + prefix).contains("/24");
      }
    }
  }

  private String networkYaml() {
    return CniNetworkYaml.named(network)
        .matchLabel("cnioperator.dev/e2e", network)
        .plugin(
            "type: bridge\nbridge: \"$(node.labels[%s])\"\n%s"
                .formatted(
                    BRIDGE_LABEL,
                    CniNetworkYaml.hostLocal("\"$(node.hostLocalRanges)\"", work.resolve("ipam"))))
        .spec("check: {enabled: false}")
        .spec("ipamCleanup: {enabled: false}")
        .yaml();
  }

  /** The text at {@code pointer} in the conflist {@code node} holds, or null without one. */
  private String held(String node, String pointer) {
    return nodes.get(node).conflist(file).map(c -> read(c).at(pointer).textValue()).orElse(null);
  }

  private static JsonNode read(String content) {
    try {
      return JSON.readTree(content);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + content, e);
    }
  }

  private CniNetwork network() {
    return cp.client().resources(CniNetwork.class).withName(network).get();
  }

  private CniNode cniNode(String node) {
    return cp.client().resources(CniNode.class).withName(node).get();
  }

  /** {@code node} applied what its spec names and reported the probe its spec asks for. */
  private void assertSettled(String node) {
    NodeNetwork spec = specEntry(node).orElseThrow();
    NodeNetworkStatus report = report(node).orElseThrow();
    assertThat(report.getAppliedSha256()).as(node).isEqualTo(spec.getSha256());
    if (spec.getProbe() != null) {
      assertThat(report.getProbe()).as("%s's probe", node).isNotNull();
      assertThat(report.getProbe().getSha256()).as("%s's probe", node).isEqualTo(spec.getSha256());
    }
  }

  private Optional<NodeNetwork> specEntry(String node) {
    CniNode n = cniNode(node);
    if (n == null || n.getSpec() == null) {
      return Optional.empty();
    }
    return n.getSpec().network(network);
  }

  private Optional<NodeNetworkStatus> report(String node) {
    CniNode n = cniNode(node);
    if (n == null || n.getStatus() == null) {
      return Optional.empty();
    }
    return n.getStatus().network(network);
  }

  private Optional<Condition> condition(String type) {
    CniNetwork n = network();
    if (n == null || n.getStatus() == null || n.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return n.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst();
  }
}
