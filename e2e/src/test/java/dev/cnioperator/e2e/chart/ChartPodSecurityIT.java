package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chart and Pod Security admission on the local control plane (whose kube-apiserver runs the
 * PodSecurity admission plugin, on by default): an install into a namespace that enforces a level
 * stricter than privileged is refused naming the label and the command that fixes it, because the
 * API server would admit the DaemonSet and then reject every one of its pods.
 */
class ChartPodSecurityIT {
  private static final String ENFORCE = "pod-security.kubernetes.io/enforce";

  private LocalControlPlane controlPlane;
  private Helm helm;
  private String namespace;

  @BeforeEach
  void namespaceOfItsOwn() {
    controlPlane = LocalControlPlane.shared();
    helm = Helm.provisioned().withKubeconfig(controlPlane.kubeconfigFile());
    namespace = TestNames.unique("psa");
  }

  @AfterEach
  void removeReleaseAndNamespace() {
    helm.run("uninstall", namespace, "--namespace", namespace, "--ignore-not-found");
    controlPlane.client().namespaces().withName(namespace).delete();
  }

  @Test
  void installIntoABaselineNamespaceIsRefusedNamingTheLabelAndTheFix() {
    createNamespace("baseline");

    CommandResult install = helm.install(namespace, namespace);

    assertThat(install.exitCode()).as("helm install: %s", install.stdout()).isNotZero();
    assertThat(install.stderr())
        .contains("namespace \"" + namespace + "\"")
        .contains(ENFORCE + "=baseline")
        .contains(
            "kubectl label namespace " + namespace + " " + ENFORCE + "=privileged --overwrite");
    assertThat(helm.run("status", namespace, "--namespace", namespace).exitCode())
        .as("no release was recorded")
        .isNotZero();
  }

  @Test
  void installIntoARestrictedNamespaceIsRefusedToo() {
    createNamespace("restricted");

    CommandResult install = helm.install(namespace, namespace);

    assertThat(install.exitCode()).isNotZero();
    assertThat(install.stderr()).contains(ENFORCE + "=restricted");
  }

  @Test
  void installIntoAPrivilegedNamespaceSucceeds() {
    createNamespace("privileged");

    CommandResult install = helm.install(namespace, namespace);

    assertThat(install.exitCode()).as("helm install: %s", install.stderr()).isZero();
    assertThat(
            controlPlane
                .client()
                .apps()
                .daemonSets()
                .inNamespace(namespace)
                .withName(namespace + "-cni-operator-agent")
                .get())
        .isNotNull();
  }

  /**
   * What the check spares the user: the API server enforces the label, so in a baseline namespace a
   * pod made from the agent's template is refused, as every pod the DaemonSet controller would
   * make.
   */
  @Test
  void theApiServerRejectsTheAgentsPodInABaselineNamespace() {
    createNamespace("baseline");
    DaemonSet agent = RenderedChart.render(helm).single("DaemonSet", DaemonSet.class);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("agent-under-baseline")
            .withNamespace(namespace)
            .endMetadata()
            .withSpec(agent.getSpec().getTemplate().getSpec())
            .build();
    KubernetesClient client = controlPlane.client();

    assertThatThrownBy(() -> client.pods().inNamespace(namespace).resource(pod).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("violates PodSecurity \"baseline:latest\"")
        .hasMessageContaining("privileged");
  }

  private void createNamespace(String level) {
    controlPlane
        .client()
        .namespaces()
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(namespace)
                .withLabels(Map.of(ENFORCE, level))
                .endMetadata()
                .build())
        .create();
  }
}
