package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code helm install} of the chart into the local control plane: the API server accepts every
 * object (admission, schema and RBAC escalation checks included), and {@code helm uninstall} leaves
 * none of them behind. There are no kubelets, so pods never run; the objects are what is tested
 * here.
 */
class ChartInstallIT {
  private static final List<String> CRDS =
      List.of(
          "cninetworks.cnioperator.dev", "cninodes.cnioperator.dev", "cniplugins.cnioperator.dev");

  private static LocalControlPlane controlPlane;

  @BeforeAll
  static void controlPlane() {
    controlPlane = LocalControlPlane.shared();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "defaults",
        "operator.replicas=2",
        "agent.hostPaths.profile=k3s,agent.criSocket.enabled=true,operator.replicas=1,"
            + "operator.leaderElection.enabled=false,agent.nodeRestriction.enabled=false"
      })
  void installCreatesEveryObjectAndUninstallLeavesNoneBehind(String values) {
    KubernetesClient client = controlPlane.client();
    String[] helmArgs = values.equals("defaults") ? new String[0] : new String[] {"--set", values};
    try (ChartRelease release = ChartRelease.install(controlPlane, "inst", helmArgs)) {
      RenderedChart manifest = release.manifest();
      assertThat(manifest.documents().stream().map(d -> d.path("kind").asText()))
          .contains(
              "ServiceAccount",
              "ClusterRole",
              "ClusterRoleBinding",
              "Role",
              "RoleBinding",
              "Deployment",
              "DaemonSet");
      if (values.equals("defaults")) {
        assertThat(manifest.documents().stream().map(d -> d.path("kind").asText()))
            .contains("ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding")
            .doesNotContain("PodDisruptionBudget");
      }
      if (values.equals("operator.replicas=2")) {
        assertThat(manifest.documents().stream().map(d -> d.path("kind").asText()))
            .contains("PodDisruptionBudget");
      }
      for (JsonNode doc : manifest.documents()) {
        assertThat(live(client, doc))
            .as("%s accepted by the API server", describe(doc))
            .isNotNull();
      }
      for (String crd : CRDS) {
        assertThat(client.apiextensions().v1().customResourceDefinitions().withName(crd).get())
            .as("CRD %s installed from the chart's crds/", crd)
            .isNotNull();
      }

      CommandResult uninstall = release.uninstall();
      assertThat(uninstall.exitCode()).as("helm uninstall: %s", uninstall.stderr()).isZero();

      await()
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                for (JsonNode doc : manifest.documents()) {
                  assertThat(live(client, doc))
                      .as("%s after helm uninstall", describe(doc))
                      .isNull();
                }
              });
      // Helm never deletes what it installed from crds/ (deleting a CRD deletes every CniNetwork).
      for (String crd : CRDS) {
        assertThat(client.apiextensions().v1().customResourceDefinitions().withName(crd).get())
            .isNotNull();
      }
    }
  }

  @Test
  void upgradeToTheK3sProfileUpdatesTheAgentInPlace() {
    try (ChartRelease release = ChartRelease.install(controlPlane, "upg")) {
      CommandResult upgrade =
          release.upgrade("--set", "agent.hostPaths.profile=k3s", "--set", "operator.replicas=3");
      assertThat(upgrade.exitCode()).as("helm upgrade: %s", upgrade.stderr()).isZero();

      KubernetesClient client = controlPlane.client();
      String fullname = release.name() + "-cni-operator";
      var agent =
          client.apps().daemonSets().inNamespace(release.namespace()).withName(fullname + "-agent");
      assertThat(agent.get().getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
          .contains("--conf-dir=/var/lib/rancher/k3s/agent/etc/cni/net.d");
      assertThat(
              client
                  .apps()
                  .deployments()
                  .inNamespace(release.namespace())
                  .withName(fullname + "-operator")
                  .get()
                  .getSpec()
                  .getReplicas())
          .isEqualTo(3);
    }
  }

  @Test
  void installNotesPointAtAnExampleThatExistsAndAtItsName() throws IOException {
    String notes;
    try (ChartRelease release = ChartRelease.install(controlPlane, "notes")) {
      notes = release.installOutput();
    }

    Matcher apply = Pattern.compile("kubectl apply -f (examples/\\S+\\.yaml)").matcher(notes);
    Matcher wait =
        Pattern.compile("kubectl wait --for=condition=Ready cninetwork/(\\S+)").matcher(notes);
    assertThat(apply.find()).as("NOTES tell the user to apply an example:\n%s", notes).isTrue();
    assertThat(wait.find()).as("NOTES tell the user to wait for Ready:\n%s", notes).isTrue();
    assertThat(notes).contains("kubectl get cninetworks", "kubectl get cninodes");
    assertThat(notes).as("the example is presented as node-local").contains("node-local example");
    Path example = ToolPaths.repoRoot().resolve(apply.group(1));
    assertThat(example).exists();
    assertThat(Files.readString(example)).contains("kind: CniNetwork", "name: " + wait.group(1));
  }

  @Test
  void installNotesWaitWithATimeoutAndKeepThePodNetworkOnUninstall() {
    String notes;
    try (ChartRelease release = ChartRelease.install(controlPlane, "notes")) {
      notes = release.installOutput();
    }

    // Every wait ends, on a one-node cluster as on any other.
    assertThat(notes.lines().filter(l -> l.contains("rollout status")))
        .hasSize(2)
        .allSatisfy(l -> assertThat(l).contains("--timeout="));
    assertThat(notes.lines().filter(l -> l.contains("kubectl wait")))
        .allSatisfy(l -> assertThat(l).contains("--timeout="));
    // Deleting the networks first would take the pod network off every node.
    assertThat(notes)
        .doesNotContain("delete cninetworks")
        .contains("The conflists and plugin binaries stay on the nodes")
        .contains("agent.removeConflistsOnUninstall=true")
        .contains("NotReady");
  }

  private static GenericKubernetesResource live(KubernetesClient client, JsonNode doc) {
    var resources =
        client.genericKubernetesResources(
            doc.path("apiVersion").asText(), doc.path("kind").asText());
    String namespace = doc.path("metadata").path("namespace").asText("");
    String name = doc.path("metadata").path("name").asText();
    return namespace.isEmpty()
        ? resources.withName(name).get()
        : resources.inNamespace(namespace).withName(name).get();
  }

  private static String describe(JsonNode doc) {
    return doc.path("kind").asText() + " " + doc.path("metadata").path("name").asText();
  }
}
