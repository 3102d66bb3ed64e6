package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.devices.NetworkDevices;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The chart's ValidatingAdmissionPolicy on the real API server: the agent's ServiceAccount, with a
 * token the API server minted (TokenRequest), may write the status of the CniNode named after the
 * node bound into its token and of no other; RBAC keeps it off CniNode specs and CniNetworks; other
 * accounts are not affected by the policy.
 */
class AgentNodeRestrictionIT {
  private static final String API_VERSION = "cnioperator.dev/v1alpha1";
  private static final Duration TOKEN_TTL = Duration.ofMinutes(10);

  private static LocalControlPlane controlPlane;
  private static ChartRelease release;
  private static Node ownNode;
  private static Node otherNode;

  @BeforeAll
  static void installChartWithTwoNodes() {
    controlPlane = LocalControlPlane.shared();
    release = ChartRelease.install(controlPlane, "vap");
    KubernetesClient admin = controlPlane.client();
    ownNode = admin.nodes().resource(node(TestNames.unique("own"))).create();
    otherNode = admin.nodes().resource(node(TestNames.unique("other"))).create();
    for (Node n : List.of(ownNode, otherNode)) {
      cniNodes(admin).resource(cniNode(n.getMetadata().getName())).create();
    }
  }

  @AfterAll
  static void removeEverything() {
    if (controlPlane == null) {
      return;
    }
    KubernetesClient admin = controlPlane.client();
    for (Node n : new Node[] {ownNode, otherNode}) {
      if (n != null) {
        cniNodes(admin).withName(n.getMetadata().getName()).delete();
        admin.nodes().withName(n.getMetadata().getName()).delete();
      }
    }
    if (release != null) {
      release.close();
    }
  }

  @Test
  void agentWithItsPodTokenWritesItsOwnNodesStatusOnly() {
    assertOwnAllowedOtherDenied(release.agentPodToken(ownNode, TOKEN_TTL));
  }

  @Test
  void agentWithANodeBoundTokenWritesItsOwnNodesStatusOnly() {
    assertOwnAllowedOtherDenied(release.agentNodeToken(ownNode, TOKEN_TTL));
  }

  @Test
  void agentTokenBoundToNoNodeIsRefused() {
    try (KubernetesClient agent =
        controlPlane.clientForToken(release.agentUnboundToken(TOKEN_TTL))) {
      String own = ownNode.getMetadata().getName();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThatThrownBy(() -> patchStatus(agent, own, "unbound"))
                      .isInstanceOfSatisfying(
                          KubernetesClientException.class,
                          e -> {
                            assertThat(e.getCode()).isEqualTo(403);
                            assertThat(e.getMessage()).contains("not bound to a node");
                          }));
    }
  }

  @Test
  void agentCannotWriteCniNodeSpecsOrCniNetworks() {
    try (KubernetesClient agent =
        controlPlane.clientForToken(release.agentUnboundToken(TOKEN_TTL))) {
      String own = ownNode.getMetadata().getName();

      assertThat(cniNodes(agent).withName(own).get()).isNotNull();
      assertThatThrownBy(
              () ->
                  cniNodes(agent)
                      .withName(own)
                      .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"networks\":[]}}"))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(
              () ->
                  agent
                      .genericKubernetesResources(API_VERSION, "CniNetwork")
                      .resource(
                          new GenericKubernetesResourceBuilder()
                              .withApiVersion(API_VERSION)
                              .withKind("CniNetwork")
                              .withNewMetadata()
                              .withName(TestNames.unique("net"))
                              .endMetadata()
                              .build())
                      .create())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }
  }

  @Test
  void policyLeavesOtherAccountsAlone() {
    try (KubernetesClient operator =
        controlPlane.clientForToken(release.operatorToken(TOKEN_TTL))) {
      String other = otherNode.getMetadata().getName();

      cniNodes(operator)
          .withName(other)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"annotations\":{\"cnioperator.dev/test\":\"operator\"}}}");

      assertThat(
              cniNodes(controlPlane.client()).withName(other).get().getMetadata().getAnnotations())
          .containsEntry("cnioperator.dev/test", "operator");
    }
  }

  /**
   * Issue 55: the agent writes the networks driver's ResourceSlice of its own node, and no slice of
   * another node or another driver.
   */
  @Test
  void agentWritesOnlyItsOwnNodesSliceOfTheNetworksDriver() {
    String own = ownNode.getMetadata().getName();
    String other = otherNode.getMetadata().getName();
    try (KubernetesClient agent =
        controlPlane.clientForToken(release.agentPodToken(ownNode, TOKEN_TTL))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertSliceDenied(
                      () -> agent.resource(slice(other, NetworkDevices.DRIVER)).dryRun().create(),
                      own));
      assertSliceDenied(() -> agent.resource(slice(other, NetworkDevices.DRIVER)).create(), own);
      assertSliceDenied(() -> agent.resource(slice(own, "gpu.example.com")).create(), own);

      ResourceSlice mine = agent.resource(slice(own, NetworkDevices.DRIVER)).create();
      assertThat(mine.getSpec().getNodeName()).isEqualTo(own);
      agent.resource(mine).delete();
    }
  }

  private static ResourceSlice slice(String node, String driver) {
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(node + "-" + driver)
        .endMetadata()
        .withNewSpec()
        .withDriver(driver)
        .withNodeName(node)
        .withNewPool()
        .withName(node)
        .withGeneration(1L)
        .withResourceSliceCount(1L)
        .endPool()
        .addNewDevice()
        .withName("probe")
        .endDevice()
        .endSpec()
        .build();
  }

  private static void assertSliceDenied(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable write, String own) {
    assertThatThrownBy(write)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getMessage())
                  .contains(
                      "may write only the networks.cnioperator.dev ResourceSlice of node " + own);
            });
  }

  private static void assertOwnAllowedOtherDenied(String token) {
    String own = ownNode.getMetadata().getName();
    String other = otherNode.getMetadata().getName();
    try (KubernetesClient agent = controlPlane.clientForToken(token)) {
      // A new policy takes effect once the API server's policy informer has seen it; wait with
      // dry-run writes (admission runs, nothing is stored), then prove a real write is refused.
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> assertDenied(() -> patchStatus(agent, other, "intruder", true), own, other));
      assertDenied(() -> patchStatus(agent, other, "intruder", false), own, other);

      String marker = TestNames.unique("mark");
      patchStatus(agent, own, marker);

      KubernetesClient admin = controlPlane.client();
      assertThat(status(admin, own)).containsEntry("defaultNetwork", marker);
      assertThat(status(admin, other)).doesNotContainEntry("defaultNetwork", "intruder");
    }
  }

  private static void assertDenied(
      org.assertj.core.api.ThrowableAssert.ThrowingCallable write, String own, String other) {
    assertThatThrownBy(write)
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(403);
              assertThat(e.getMessage())
                  .contains("may write only CniNode " + own + ", not CniNode " + other);
            });
  }

  private static void patchStatus(KubernetesClient client, String cniNode, String defaultNetwork) {
    patchStatus(client, cniNode, defaultNetwork, false);
  }

  private static void patchStatus(
      KubernetesClient client, String cniNode, String defaultNetwork, boolean dryRun) {
    var resource = cniNodes(client).withName(cniNode);
    (dryRun ? resource.dryRun() : resource)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"defaultNetwork\":\"" + defaultNetwork + "\"}}");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> status(KubernetesClient client, String cniNode) {
    Object status =
        cniNodes(client).withName(cniNode).get().getAdditionalProperties().get("status");
    return status == null ? Map.of() : (Map<String, Object>) status;
  }

  private static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      cniNodes(KubernetesClient client) {
    return client.genericKubernetesResources(API_VERSION, "CniNode");
  }

  private static GenericKubernetesResource cniNode(String name) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION)
        .withKind("CniNode")
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("networks", List.of())))
        .build();
  }

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }
}
