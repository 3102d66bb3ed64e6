package dev.cnioperator.operator.it;

import static org.awaitility.Awaitility.await;

import dev.cnioperator.operator.multus.AttachmentDefinition;
import dev.cnioperator.testkit.LocalControlPlane;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The NetworkAttachmentDefinition CRD (test resource multus/, of the shape Multus installs) on the
 * shared control plane, for the duration of a test: installed if it was not, and removed on close
 * only if this installed it, so the API server is left as it was found. Removing it removes every
 * definition with it.
 */
final class AttachmentDefinitionCrd implements AutoCloseable {
  static final String NAME = AttachmentDefinition.CRD_NAME;

  private final LocalControlPlane controlPlane;
  private final boolean installedHere;

  private AttachmentDefinitionCrd(LocalControlPlane controlPlane, boolean installedHere) {
    this.controlPlane = controlPlane;
    this.installedHere = installedHere;
  }

  static boolean installed(KubernetesClient client) {
    return client.apiextensions().v1().customResourceDefinitions().withName(NAME).get() != null;
  }

  /** Installs the CRD (unless it is) and waits until the API server serves the resource. */
  static AttachmentDefinitionCrd install(LocalControlPlane controlPlane) {
    if (installed(controlPlane.client())) {
      return new AttachmentDefinitionCrd(controlPlane, false);
    }
    controlPlane.kubectlWithInput(yaml(), "apply", "-f", "-").orThrow("apply the NAD CRD");
    controlPlane
        .kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/" + NAME)
        .orThrow("wait for the NAD CRD");
    await("the API server serves network-attachment-definitions")
        .atMost(ClusterFixture.WAIT)
        .ignoreExceptions()
        .until(() -> definitions(controlPlane.client()).inAnyNamespace().list() != null);
    return new AttachmentDefinitionCrd(controlPlane, true);
  }

  static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      definitions(KubernetesClient client) {
    return client.genericKubernetesResources(AttachmentDefinition.RESOURCE);
  }

  /** Every definition named {@code name}, as "namespace/name", sorted. */
  static List<String> named(KubernetesClient client, String name) {
    return definitions(client)
        .inAnyNamespace()
        .withField("metadata.name", name)
        .list()
        .getItems()
        .stream()
        .map(d -> d.getMetadata().getNamespace() + "/" + d.getMetadata().getName())
        .sorted()
        .toList();
  }

  private static String yaml() {
    try (InputStream in =
        AttachmentDefinitionCrd.class.getResourceAsStream(
            "/multus/network-attachment-definition-crd.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (installedHere) {
      controlPlane
          .kubectl("delete", "crd", NAME, "--ignore-not-found", "--wait=true", "--timeout=60s")
          .orThrow("delete the NAD CRD");
    }
  }
}
