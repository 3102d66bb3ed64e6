package dev.cnioperator.e2e.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.e2e.CniNetworkYaml;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 42.2 through the operator: a CniNetwork with {@code spec.appendTo} chains tuning onto a
 * foreign primary's network ({@code cbr0}, a ptp network another product wrote on each node) and
 * goes out like any network: each node's probe attachment runs the foreign plugin and the declared
 * one from the file as it is. An edit that breaks pods (an MTU no veth takes) fails the canary's
 * probe and is rolled back; the canary's file holds the good entry again, the foreign plugin
 * untouched throughout. Real agents, the real reference plugins, real network namespaces.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeclaredChainRolloutIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FILE = "10-flannel.conflist";

  private FaultProduct fault;

  @RegisterExtension final FaultDiagnosis diagnosis = new FaultDiagnosis(() -> fault);

  @BeforeAll
  void installTheProduct() {
    fault = FaultProduct.install("chain");
    fault.startOperator(ProcessOptions.DEFAULT);
  }

  @AfterAll
  void removeIt() {
    if (fault != null) {
      fault.close();
    }
  }

  @Test
  void aDeclaredChainGoesOutProvenAndABreakingEditIsRolledBack() throws Exception {
    List<SandboxNode> nodes = new ArrayList<>();
    List<String> foreign = new ArrayList<>();
    for (String base : List.of("cha", "chb")) {
      String name = fault.createNode(base);
      // The foreign product's plugins and file, as its own installer put them on the node; each
      // node its own subnet (ptp routes each pod's address on the one host these nodes share).
      Path root = fault.work().resolve("nodes/" + name);
      Path bin = Files.createDirectories(root.resolve("opt/cni/bin"));
      for (String plugin : List.of("ptp", "host-local")) {
        Files.copy(
            ToolPaths.pluginDir().resolve(plugin),
            bin.resolve(plugin),
            StandardCopyOption.COPY_ATTRIBUTES);
      }
      String content =
          "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"ptp\","
              + "\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.231."
              + (40 + foreign.size())
              + ".0/24\",\"dataDir\":\""
              + root.resolve("var/lib/cni/networks")
              + "\"}}]}";
      Files.writeString(
          Files.createDirectories(root.resolve("etc/cni/net.d")).resolve(FILE), content);
      foreign.add(content);
      nodes.add(fault.product().startAgent(name));
    }
    String name = TestNames.unique("shaping");
    fault.apply(chain(name, 1400, nodes));
    fault.waitRolledOut(name);
    String stable = fault.renderedSha(name);
    for (int i = 0; i < nodes.size(); i++) {
      JsonNode file = JSON.readTree(nodes.get(i).conflist(FILE).orElseThrow());
      assertThat(file.at("/plugins/0")).isEqualTo(JSON.readTree(foreign.get(i)).at("/plugins/0"));
      assertThat(file.at("/plugins/1/type").asText()).isEqualTo("tuning");
      assertThat(file.at("/plugins/1/mtu").asInt()).isEqualTo(1400);
    }

    fault.apply(chain(name, 70000, nodes));
    RolloutStatus rolledBack =
        await()
            .atMost(FaultProduct.WAIT)
            .until(() -> rollout(name), r -> r != null && r.getPhase() == RolloutPhase.RolledBack);
    String canary = rolledBack.getFailure().getNode();
    CommandResult described = fault.controlPlane().kubectl("describe", "cninetwork", name);
    System.out.printf(
        "declared-chain rollout=rolled-back canary=%s%n$ kubectl describe cninetwork %s%n%s%n",
        canary, name, described.stdout());
    assertThat(rolledBack.getFailure().getReason()).isEqualTo("ProbeFailed");
    assertThat(rolledBack.getFailure().getMessage()).startsWith("ADD: ");
    assertThat(rolledBack.getStableRevision()).isEqualTo(stable);
    SandboxNode canaryNode =
        nodes.stream().filter(n -> n.name().equals(canary)).findFirst().orElseThrow();
    await()
        .atMost(FaultProduct.WAIT)
        .untilAsserted(
            () ->
                assertThat(
                        JSON.readTree(canaryNode.conflist(FILE).orElseThrow())
                            .at("/plugins/1/mtu")
                            .asInt())
                    .isEqualTo(1400));
    fault.waitReady(name);
    for (int i = 0; i < nodes.size(); i++) {
      JsonNode file = JSON.readTree(nodes.get(i).conflist(FILE).orElseThrow());
      assertThat(file.get("plugins")).as(nodes.get(i).name()).hasSize(2);
      assertThat(file.at("/plugins/0")).isEqualTo(JSON.readTree(foreign.get(i)).at("/plugins/0"));
    }

    // The declaration goes: each file is as its product wrote it.
    fault.controlPlane().kubectl("delete", "cninetwork", name).orThrow("kubectl delete");
    for (int i = 0; i < nodes.size(); i++) {
      SandboxNode n = nodes.get(i);
      String written = foreign.get(i);
      await()
          .atMost(FaultProduct.WAIT)
          .untilAsserted(
              () ->
                  assertThat(JSON.readTree(n.conflist(FILE).orElseThrow()))
                      .isEqualTo(JSON.readTree(written)));
    }
  }

  private String chain(String name, int mtu, List<SandboxNode> nodes) {
    String names = String.join(", ", nodes.stream().map(SandboxNode::name).toList());
    return CniNetworkYaml.named(name)
        .nodeSelector(
            "matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: ["
                + names
                + "]}]")
        .plugin("type: tuning\nmtu: " + mtu)
        .spec("appendTo: cbr0")
        .yaml();
  }

  private RolloutStatus rollout(String network) {
    CniNetwork n = fault.network(network);
    return n == null || n.getStatus() == null ? null : n.getStatus().getRollout();
  }
}
