package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Proves the local control plane is a real one: CEL validation, version, helm, GC, tokens. */
class LocalControlPlaneIT {
  private static final String CRD =
      """
      apiVersion: apiextensions.k8s.io/v1
      kind: CustomResourceDefinition
      metadata:
        name: widgets.smoke.cnioperator.dev
      spec:
        group: smoke.cnioperator.dev
        scope: Cluster
        names: {plural: widgets, singular: widget, kind: Widget}
        versions:
        - name: v1
          served: true
          storage: true
          schema:
            openAPIV3Schema:
              type: object
              properties:
                spec:
                  type: object
                  properties:
                    min: {type: integer}
                    max: {type: integer}
                  x-kubernetes-validations:
                  - rule: "self.min <= self.max"
                    message: "spec.min must not be greater than spec.max"
      """;

  private static LocalControlPlane cp;

  @BeforeAll
  static void start() {
    cp = LocalControlPlane.shared();
  }

  @Test
  void celRuleOfACrdRefusesAnInvalidObjectWithItsMessage() {
    cp.kubectlWithInput(CRD, "apply", "-f", "-").orThrow("apply CRD");
    cp.kubectl(
            "wait",
            "--for=condition=Established",
            "crd/widgets.smoke.cnioperator.dev",
            "--timeout=60s")
        .orThrow("wait for CRD");
    String good =
        "apiVersion: smoke.cnioperator.dev/v1\nkind: Widget\nmetadata: {name: ok}\n"
            + "spec: {min: 1, max: 2}\n";
    String bad =
        "apiVersion: smoke.cnioperator.dev/v1\nkind: Widget\nmetadata: {name: bad}\n"
            + "spec: {min: 3, max: 2}\n";

    assertThat(cp.kubectlWithInput(good, "apply", "-f", "-").ok()).isTrue();
    CommandResult refused = cp.kubectlWithInput(bad, "apply", "-f", "-");

    assertThat(refused.ok()).isFalse();
    assertThat(refused.stderr()).contains("spec.min must not be greater than spec.max");
    cp.kubectl("delete", "crd", "widgets.smoke.cnioperator.dev", "--wait=false");
  }

  @Test
  void kubectlAndHelmReportThePinnedVersions() {
    String version = ToolPaths.kubernetesVersion();
    CommandResult kubectl = cp.kubectl("version").orThrow("kubectl version");
    assertThat(kubectl.stdout())
        .contains("Client Version: v" + version)
        .contains("Server Version: v" + version);

    CommandResult helm =
        Commands.run(
                List.of(ToolPaths.helm().toString(), "version", "--short"),
                helmEnvironment(),
                null,
                Duration.ofMinutes(1))
            .orThrow("helm version");
    assertThat(helm.stdout()).startsWith("v3.");
    CommandResult helmList =
        Commands.run(
                List.of(ToolPaths.helm().toString(), "list", "--all-namespaces"),
                helmEnvironment(),
                null,
                Duration.ofMinutes(1))
            .orThrow("helm list against the local API server");
    assertThat(helmList.stdout()).contains("NAME");
  }

  /** This control plane, and helm's directories in its work dir rather than the home's. */
  private Map<String, String> helmEnvironment() {
    Path home = cp.workDir().resolve("helm");
    return Map.of(
        "KUBECONFIG", cp.kubeconfigFile().toString(),
        "HELM_CACHE_HOME", home.resolve("cache").toString(),
        "HELM_CONFIG_HOME", home.resolve("config").toString(),
        "HELM_DATA_HOME", home.resolve("data").toString(),
        "KUBECACHEDIR", home.resolve("kube-cache").toString());
  }

  @Test
  void anObjectOwnedByADeletedOwnerIsGarbageCollected() {
    KubernetesClient client = cp.client();
    String ns = TestNames.unique("gc");
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    try {
      ConfigMap owner =
          client
              .configMaps()
              .inNamespace(ns)
              .resource(
                  new ConfigMapBuilder().withNewMetadata().withName("owner").endMetadata().build())
              .create();
      client
          .configMaps()
          .inNamespace(ns)
          .resource(
              new ConfigMapBuilder()
                  .withNewMetadata()
                  .withName("owned")
                  .addNewOwnerReference()
                  .withApiVersion("v1")
                  .withKind("ConfigMap")
                  .withName("owner")
                  .withUid(owner.getMetadata().getUid())
                  .endOwnerReference()
                  .endMetadata()
                  .build())
          .create();

      client.configMaps().inNamespace(ns).withName("owner").delete();

      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> client.configMaps().inNamespace(ns).withName("owned").get() == null);
    } finally {
      client.namespaces().withName(ns).delete();
    }
  }

  @Test
  void aServiceAccountTokenAuthenticatesAsThatAccountAndNothingMore() {
    KubernetesClient admin = cp.client();
    String ns = TestNames.unique("sa");
    admin
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
        .create();
    try {
      admin
          .serviceAccounts()
          .inNamespace(ns)
          .resource(
              new ServiceAccountBuilder().withNewMetadata().withName("probe").endMetadata().build())
          .create();
      String token = cp.serviceAccountToken(ns, "probe", Duration.ofMinutes(10));

      try (KubernetesClient asProbe = cp.clientForToken(token)) {
        KubernetesClientException denied =
            org.junit.jupiter.api.Assertions.assertThrows(
                KubernetesClientException.class, () -> asProbe.configMaps().inNamespace(ns).list());
        assertThat(denied.getCode()).isEqualTo(403);
        assertThat(denied.getMessage()).contains("system:serviceaccount:" + ns + ":probe");
      }
    } finally {
      admin.namespaces().withName(ns).delete();
    }
  }

  @Test
  void apiServerAndEtcdListenOnLoopbackOnly() throws Exception {
    cp.client().namespaces().list();
    List<String> listeners =
        Files.readAllLines(Path.of("/proc/net/tcp")).stream()
            .skip(1)
            .map(String::trim)
            .map(l -> l.split("\\s+"))
            .filter(f -> f[3].equals("0A")) // LISTEN
            .map(f -> f[1])
            .toList();
    String etcdServers =
        ProcessHandle.allProcesses()
            .map(p -> p.info().commandLine().orElse(""))
            .filter(c -> c.contains("--secure-port=" + cp.apiServerPort()))
            .findFirst()
            .orElseThrow()
            .replaceAll(".*--etcd-servers=(\\S+).*", "$1");
    int etcdPort = java.net.URI.create(etcdServers).getPort();

    for (int port : List.of(cp.apiServerPort(), etcdPort)) {
      String hex = String.format(":%04X", port);
      assertThat(listeners).as("listeners of port %d", port).contains("0100007F" + hex);
      assertThat(listeners).as("listeners of port %d", port).doesNotContain("00000000" + hex);
    }
  }
}
