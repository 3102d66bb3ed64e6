package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Multus networks against the real API server: the operator keeps a config-less
 * NetworkAttachmentDefinition of the network's name in each chosen namespace, following namespaces
 * and the spec, never touching one it did not create; and it runs, reporting NotInstalled, on a
 * cluster without the NetworkAttachmentDefinition CRD until the CRD is installed.
 */
class MultusAttachmentDefinitionsIT {
  private ClusterFixture cluster;
  private final List<String> namespaces = new ArrayList<>();

  @BeforeEach
  void setUp() {
    cluster = new ClusterFixture();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
    for (String n : namespaces) {
      cluster.controlPlane.client().namespaces().withName(n).delete();
    }
  }

  @Test
  void withoutTheCrdAMultusNetworkIsNotInstalledAndWorksOnceItIsInstalledWithoutARestart() {
    assertThat(AttachmentDefinitionCrd.installed(cluster.client))
        .as("another test left the NetworkAttachmentDefinition CRD installed")
        .isFalse();
    String node = cluster.node("mnoc");
    String shop = namespace("mshop", Map.of());
    String plain = "plain-" + cluster.pool;
    String secondary = "sec-" + cluster.pool;
    cluster.apply(plain, cluster.bridgeSpec("ct-mplain0", "10.200.47.0/24")).orThrow("apply");
    cluster
        .apply(
            secondary,
            cluster.bridgeSpec("ct-msec0", "10.200.48.0/24") + multus(List.of(shop), null))
        .orThrow("apply");
    await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.networksOn(node).containsAll(List.of(plain, secondary)));
    assertThat(cluster.specOf(node))
        .extracting(NodeNetwork::getName, NodeNetwork::getDirectory)
        .containsExactlyInAnyOrder(tuple(plain, null), tuple(secondary, ConfigDirectory.Multus));
    cluster.agentReportsApplied(node);

    cluster.awaitCondition(plain, "Ready", "True");
    Condition notInstalled = awaitReason(secondary, "AttachmentDefinitions", "NotInstalled");
    assertThat(notInstalled.getStatus()).isEqualTo("False");
    assertThat(notInstalled.getMessage())
        .contains("network-attachment-definitions.k8s.cni.cncf.io")
        .contains("install Multus");
    Condition ready = awaitReason(secondary, "Ready", "AttachmentDefinitionsMissing");
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getMessage()).contains("is not installed");
    assertThat(cluster.network(plain).getStatus().getConditions())
        .extracting(Condition::getType)
        .doesNotContain("AttachmentDefinitions");
    assertThat(TestOperator.shared().ready()).as("every informer of the operator serves").isTrue();

    AttachmentDefinitionCrd crd = AttachmentDefinitionCrd.install(cluster.controlPlane);
    try {
      Condition created = cluster.awaitCondition(secondary, "AttachmentDefinitions", "True");
      assertThat(created.getReason()).isEqualTo("Created");
      assertThat(AttachmentDefinitionCrd.named(cluster.client, secondary))
          .containsExactly(shop + "/" + secondary);
      GenericKubernetesResource nad =
          AttachmentDefinitionCrd.definitions(cluster.client)
              .inNamespace(shop)
              .withName(secondary)
              .get();
      CniNetwork network = cluster.network(secondary);
      assertThat(nad.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(o -> assertThat(o.getUid()).isEqualTo(network.getMetadata().getUid()));
      assertThat(nad.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/managed-by", "cni-operator")
          .containsEntry("cnioperator.dev/network", secondary);
      assertThat(nad.getAdditionalProperties().get("spec")).isEqualTo(Map.of());
      assertThat(network.getStatus().getAttachmentDefinitions()).containsExactly(shop);
      cluster.awaitCondition(secondary, "Ready", "True");

      cluster.client.resources(CniNetwork.class).withName(secondary).delete();
      await("the definitions go with the network")
          .atMost(ClusterFixture.WAIT)
          .until(() -> AttachmentDefinitionCrd.named(cluster.client, secondary).isEmpty());
    } finally {
      crd.close();
    }
  }

  /**
   * Issue 55.2: a Multus network published to the scheduler has a ResourceClaimTemplate of its name
   * beside each of its definitions, asking for one device of its DeviceClass; they follow the
   * chosen namespaces, and go when it stops publishing.
   */
  @Test
  void aPublishedNetworkHasAClaimTemplateBesideEachDefinition() {
    String node = cluster.node("mtpl");
    String a = namespace("mtpla", Map.of());
    String b = namespace("mtplb", Map.of());
    String name = "tpl-" + cluster.pool;
    String publish = "  scheduling: {publishDevices: true}\n";
    AttachmentDefinitionCrd crd = AttachmentDefinitionCrd.install(cluster.controlPlane);
    try {
      cluster
          .apply(
              name,
              publish
                  + cluster.bridgeSpec("ct-mtpl0", "10.200.49.0/24")
                  + multus(List.of(a, b), null))
          .orThrow("apply");
      await("templates in both namespaces")
          .atMost(ClusterFixture.WAIT)
          .until(() -> templateNamespaces(name).equals(List.of(a, b).stream().sorted().toList()));
      ResourceClaimTemplate t =
          cluster
              .client
              .dynamicResourceAllocation()
              .v1()
              .resourceClaimTemplates()
              .inNamespace(a)
              .withName(name)
              .get();
      assertThat(t.getSpec().getSpec().getDevices().getRequests())
          .singleElement()
          .satisfies(
              r -> {
                assertThat(r.getName()).isEqualTo("network");
                assertThat(r.getExactly().getDeviceClassName())
                    .isEqualTo(name + ".networks.cnioperator.dev");
              });
      assertThat(t.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              o -> assertThat(o.getUid()).isEqualTo(cluster.network(name).getMetadata().getUid()));

      // A namespace left out: its template goes with its definition.
      cluster
          .apply(
              name,
              publish + cluster.bridgeSpec("ct-mtpl0", "10.200.49.0/24") + multus(List.of(a), null))
          .orThrow("apply");
      await("the template of the namespace left out gone")
          .atMost(ClusterFixture.WAIT)
          .until(() -> templateNamespaces(name).equals(List.of(a)));

      // Not published any more: none.
      cluster
          .apply(name, cluster.bridgeSpec("ct-mtpl0", "10.200.49.0/24") + multus(List.of(a), null))
          .orThrow("apply");
      await("no template")
          .atMost(ClusterFixture.WAIT)
          .until(() -> templateNamespaces(name).isEmpty());
      assertThat(cluster.networksOn(node)).contains(name);
    } finally {
      cluster.client.resources(CniNetwork.class).withName(name).delete();
      crd.close();
    }
  }

  /** The namespaces with a ResourceClaimTemplate named {@code name}, sorted. */
  private List<String> templateNamespaces(String name) {
    return cluster
        .client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaimTemplates()
        .inAnyNamespace()
        .withField("metadata.name", name)
        .list()
        .getItems()
        .stream()
        .map(t -> t.getMetadata().getNamespace())
        .sorted()
        .toList();
  }

  @Test
  void definitionsFollowTheChosenNamespacesAndNeverTouchOneTheOperatorDidNotCreate() {
    AttachmentDefinitionCrd crd = AttachmentDefinitionCrd.install(cluster.controlPlane);
    try {
      String node = cluster.node("mnad");
      String label = "cnioperator.dev/test-multus";
      String listed = namespace("mlist", Map.of());
      String later = TestNames.unique("mlater");
      String selected = namespace("msel", Map.of());
      String theirs = namespace("mtheirs", Map.of());
      String name = "mx-" + cluster.pool;
      String selector = "{matchLabels: {\"" + label + "\": " + cluster.pool + "}}";
      String base = cluster.bridgeSpec("ct-mnad0", "10.200.49.0/24");
      cluster.apply(name, base + multus(List.of(listed, later), selector)).orThrow("apply");
      await().atMost(ClusterFixture.WAIT).until(() -> cluster.networksOn(node).contains(name));
      cluster.agentReportsApplied(node);

      awaitDefinitions(name, listed);
      Condition created = cluster.awaitCondition(name, "AttachmentDefinitions", "True");
      assertThat(created.getMessage())
          .isEqualTo(
              "NetworkAttachmentDefinition "
                  + name
                  + " is in 1 namespace; waiting for namespace "
                  + later
                  + " to exist");
      cluster.awaitCondition(name, "Ready", "True");

      // A namespace that starts matching the selector, one listed that appears, one that stops
      // matching.
      relabel(selected, Map.of(label, cluster.pool));
      awaitDefinitions(name, listed, selected);
      namespaces.add(later);
      createNamespace(later, Map.of());
      awaitDefinitions(name, later, listed, selected);
      relabel(selected, Map.of());
      awaitDefinitions(name, later, listed);
      List<String> holding = List.of(later, listed).stream().sorted().toList();
      await("status.attachmentDefinitions " + holding)
          .atMost(ClusterFixture.WAIT)
          .until(
              () -> holding.equals(cluster.network(name).getStatus().getAttachmentDefinitions()));

      // One of the same name that the operator did not create is never touched.
      GenericKubernetesResource foreign = foreignDefinition(theirs, name);
      cluster.apply(name, base + multus(List.of(listed, later, theirs), selector)).orThrow("apply");
      Condition conflict = awaitReason(name, "AttachmentDefinitions", "Conflict");
      assertThat(conflict.getStatus()).isEqualTo("False");
      assertThat(conflict.getMessage()).contains(theirs + "/" + name);
      Condition notReady = cluster.awaitCondition(name, "Ready", "False");
      assertThat(notReady.getReason()).isEqualTo("AttachmentDefinitionsMissing");
      assertThat(cluster.events(name, "Warning"))
          .contains("AttachmentDefinitions: NetworkAttachmentDefinition " + theirs + "/" + name);
      assertUntouched(foreign);

      cluster.apply(name, base + multus(List.of(listed, later), selector)).orThrow("apply");
      awaitReason(name, "AttachmentDefinitions", "Created");
      cluster.awaitCondition(name, "Ready", "True");
      assertUntouched(foreign);

      // A rename: the old name's definitions go (not the foreign one), the new name's come.
      String renamed = "renamed-" + cluster.pool;
      String renamedBase = "  networkName: " + renamed + "\n" + base;
      String renamedMultus = renamedBase + multus(List.of(listed, later), selector);
      cluster.apply(name, renamedMultus).orThrow("apply");
      awaitDefinitions(renamed, later, listed);
      awaitDefinitions(name, theirs);

      // No longer a Multus network: its definitions and its condition go.
      cluster.apply(name, renamedBase).orThrow("apply");
      awaitDefinitions(renamed);
      await()
          .atMost(ClusterFixture.WAIT)
          .until(
              () ->
                  cluster.condition(name, "AttachmentDefinitions").isEmpty()
                      && cluster.network(name).getStatus().getAttachmentDefinitions() == null);

      // A Multus network again, then deleted: they come back, and go with it.
      cluster.apply(name, renamedMultus).orThrow("apply");
      awaitDefinitions(renamed, later, listed);
      cluster.client.resources(CniNetwork.class).withName(name).delete();
      awaitDefinitions(renamed);
      assertUntouched(foreign);
    } finally {
      crd.close();
    }
  }

  private static String multus(List<String> namespaces, String selector) {
    return "  attachment:\n    multus:\n      namespaces: ["
        + String.join(", ", namespaces)
        + "]\n"
        + (selector == null ? "" : "      namespaceSelector: " + selector + "\n");
  }

  private String namespace(String base, Map<String, String> labels) {
    String name = TestNames.unique(base);
    namespaces.add(name);
    createNamespace(name, labels);
    return name;
  }

  private void createNamespace(String name, Map<String, String> labels) {
    cluster
        .client
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
  }

  private void relabel(String namespace, Map<String, String> labels) {
    cluster
        .client
        .namespaces()
        .withName(namespace)
        .edit(
            n -> {
              n.getMetadata().setLabels(labels);
              return n;
            });
  }

  /** Waits until the definitions named {@code name} are exactly those in {@code in}. */
  private void awaitDefinitions(String name, String... in) {
    List<String> expected = Arrays.stream(in).map(n -> n + "/" + name).sorted().toList();
    await("definitions " + name + " in exactly " + expected)
        .atMost(ClusterFixture.WAIT)
        .until(() -> AttachmentDefinitionCrd.named(cluster.client, name).equals(expected));
  }

  private Condition awaitReason(String network, String type, String reason) {
    await("condition " + type + " reason " + reason + " on " + network)
        .atMost(ClusterFixture.WAIT)
        .until(
            () ->
                cluster
                    .condition(network, type)
                    .map(c -> reason.equals(c.getReason()))
                    .orElse(false));
    return cluster.condition(network, type).orElseThrow();
  }

  /** A definition someone else made: with a configuration of its own and no owner. */
  private GenericKubernetesResource foreignDefinition(String namespace, String name) {
    GenericKubernetesResource d = new GenericKubernetesResource();
    d.setApiVersion("k8s.cni.cncf.io/v1");
    d.setKind("NetworkAttachmentDefinition");
    d.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).build());
    d.setAdditionalProperty(
        "spec",
        Map.of("config", "{\"cniVersion\":\"1.0.0\",\"name\":\"theirs\",\"type\":\"macvlan\"}"));
    return AttachmentDefinitionCrd.definitions(cluster.client)
        .inNamespace(namespace)
        .resource(d)
        .create();
  }

  private void assertUntouched(GenericKubernetesResource foreign) {
    GenericKubernetesResource now =
        AttachmentDefinitionCrd.definitions(cluster.client)
            .inNamespace(foreign.getMetadata().getNamespace())
            .withName(foreign.getMetadata().getName())
            .get();
    assertThat(now).as("the foreign definition").isNotNull();
    assertThat(now.getMetadata().getResourceVersion())
        .isEqualTo(foreign.getMetadata().getResourceVersion());
    assertThat(now.getAdditionalProperties().get("spec"))
        .isEqualTo(foreign.getAdditionalProperties().get("spec"));
  }
}
