package dev.cnioperator.agent.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.KnownFields;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.NewerCrd;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Issue 52 with a test build: the CniNode CRD of a newer release (a property in each network
 * entry), left in place after a rollback, lets the agent's CniNode carry a field this agent does
 * not know. The agent changes nothing on the node, not even by the part of the same spec it knows,
 * and its CniNode's Ready names the field; without it the spec goes through.
 */
class UnknownNodeFieldsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONVERGE = Duration.ofSeconds(60);

  /** Many passes: the agent runs one every 2 s in these tests, and on every watch event. */
  private static final Duration HOLD = Duration.ofSeconds(8);

  private static final String FIELD = "spec.networks[0].newThing";

  @Test
  void aSpecWithAFieldThisAgentDoesNotKnowChangesNothingOnTheNode() throws Exception {
    LocalControlPlane cp = LocalControlPlane.shared();
    CniNodes cniNodes = new CniNodes(cp);
    NodeNetwork held = CniNodes.network(TestNames.unique("held"), 50, 171, "1.0.0");
    NodeNetwork added = CniNodes.network(TestNames.unique("added"), 60, 172, "1.0.0");
    List<NodeNetwork> newer = List.of(withNewThing(held), added);
    try (SimulatedNode node = new SimulatedNode("unknown", ToolPaths.pluginDir());
        NewerCrd crd =
            NewerCrd.install(cp, "cninodes.cnioperator.dev", "spec.networks[].newThing")) {
      // Before the agent starts: a watch begun while the API server still serves the older schema
      // may deliver objects decoded with it, the new field pruned, until the CRD's storage is
      // replaced; one begun after the newer schema is served reads with it.
      await("the newer schema served")
          .atMost(CONVERGE)
          .until(() -> unknownFields(dryRunPut(cniNodes, node.name, newer)).contains(FIELD));
      try {
        cniNodes.put(node.name, List.of(held));
        try (AgentProcess agent =
            AgentProcess.start(node.name, node.paths, cp.kubeconfigFile(), node.log())) {
          Path heldFile = node.conflist(held);
          await("the first pass")
              .atMost(CONVERGE)
              .until(() -> isTrue(cniNodes.get(node.name), "Ready"));
          assertThat(Files.readString(heldFile)).isEqualTo(held.getContent());
          Map<String, String> before = node.snapshot();
          BasicFileAttributes file = Files.readAttributes(heldFile, BasicFileAttributes.class);
          long generation = cniNodes.get(node.name).getStatus().getObservedGeneration();

          CniNode stored = cniNodes.put(node.name, newer);
          assertThat(unknownFields(stored)).containsExactly(FIELD);

          await("Ready naming " + FIELD)
              .atMost(CONVERGE)
              .until(
                  () ->
                      condition(cniNodes.get(node.name), "Ready")
                          .filter(c -> "UnknownFields".equals(c.getReason()))
                          .isPresent());
          CniNode refused = cniNodes.get(node.name);
          Condition ready = condition(refused, "Ready").orElseThrow();
          assertThat(ready.getStatus()).isEqualTo("False");
          assertThat(ready.getMessage()).contains(FIELD);
          assertThat(condition(refused, "PodNetworkReady").orElseThrow().getStatus())
              .isEqualTo("Unknown");
          assertThat(refused.getStatus().getObservedGeneration()).isEqualTo(generation);
          assertThat(agent.logged("reason=unknown-fields")).anyMatch(l -> l.contains(FIELD));

          await("the node as it was")
              .during(HOLD)
              .atMost(HOLD.plusSeconds(10))
              .untilAsserted(
                  () -> {
                    assertThat(node.snapshot()).isEqualTo(before);
                    assertThat(node.conflist(added)).doesNotExist();
                    BasicFileAttributes now =
                        Files.readAttributes(heldFile, BasicFileAttributes.class);
                    assertThat(now.lastModifiedTime()).isEqualTo(file.lastModifiedTime());
                    assertThat(now.fileKey()).isEqualTo(file.fileKey());
                    // Not overwritten by a status of the pass before the refusal.
                    assertThat(
                            condition(cniNodes.get(node.name), "Ready").orElseThrow().getReason())
                        .isEqualTo("UnknownFields");
                  });
          assertThat(agent.scrape()).contains("outcome=\"unknown_fields\"");
          assertThat(agent.logged("reason=unknown-fields"))
              .as("the refusal logged once, not at every pass")
              .hasSize(1);

          cniNodes.put(node.name, List.of(held, added));
          await("the spec without the field applied")
              .atMost(CONVERGE)
              .until(
                  () ->
                      Files.exists(node.conflist(added))
                          && isTrue(cniNodes.get(node.name), "Ready"));
          assertThat(Files.readString(node.conflist(added))).isEqualTo(added.getContent());
          assertThat(Files.readString(heldFile)).isEqualTo(held.getContent());
        }
      } finally {
        cniNodes.delete(node.name);
      }
    }
  }

  /** {@code network} as a newer operator writes it: with a field this build does not know. */
  private static NodeNetwork withNewThing(NodeNetwork network) {
    ObjectNode json = JSON.valueToTree(network);
    json.put("newThing", "from-a-newer-release");
    return JSON.convertValue(json, NodeNetwork.class);
  }

  /** What the API server would store of {@code networks}, written as CniNodes.put writes. */
  private static CniNode dryRunPut(CniNodes cniNodes, String node, List<NodeNetwork> networks) {
    CniNode n = new CniNode();
    n.setMetadata(new ObjectMetaBuilder().withName(node).build());
    n.setSpec(new CniNodeSpec().setNetworks(networks).setPlugins(List.of()));
    return cniNodes
        .client
        .resource(n)
        .dryRun()
        .fieldManager("test-operator")
        .forceConflicts()
        .serverSideApply();
  }

  private static List<String> unknownFields(CniNode node) {
    return KnownFields.unknownFields(node.getSpec(), "spec");
  }

  private static Optional<Condition> condition(CniNode node, String type) {
    if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return node.getStatus().getConditions().stream()
        .filter(c -> type.equals(c.getType()))
        .findFirst();
  }

  private static boolean isTrue(CniNode node, String type) {
    return condition(node, type).map(c -> "True".equals(c.getStatus())).orElse(false);
  }
}
