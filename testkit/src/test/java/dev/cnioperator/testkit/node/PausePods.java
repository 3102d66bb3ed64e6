package dev.cnioperator.testkit.node;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/** Pods of the nodes' sandbox image, pinned to one node, for the node tests. */
final class PausePods {
  private PausePods() {}

  /**
   * Creates namespace {@code name} and waits for its default ServiceAccount, which a pod needs
   * first (ServiceAccount admission is on).
   */
  static void createNamespace(KubernetesClient client, String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.serviceAccounts().inNamespace(name).withName("default").get() != null);
  }

  /**
   * A pod {@code namespace/name} of one pause container on {@code node}: the image its runtime uses
   * as the sandbox image (imported into containerd, pulled by CRI-O from the test's registry).
   */
  static PodBuilder on(KubeletNode node, String namespace, String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node.name())
        .withTerminationGracePeriodSeconds(0L)
        .addNewContainer()
        .withName("pause")
        .withImage(node.runtime().pauseImage())
        .withImagePullPolicy("IfNotPresent")
        .endContainer()
        .endSpec();
  }

  /** Creates {@code pod} and returns it once it is Running. */
  static Pod createRunning(KubernetesClient client, Pod pod) {
    String ns = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    client.pods().inNamespace(ns).resource(pod).create();
    await()
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> {
              Pod p = client.pods().inNamespace(ns).withName(name).get();
              return p != null
                  && p.getStatus() != null
                  && "Running".equals(p.getStatus().getPhase());
            });
    return client.pods().inNamespace(ns).withName(name).get();
  }
}
