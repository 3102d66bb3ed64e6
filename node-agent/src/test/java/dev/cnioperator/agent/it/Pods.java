package dev.cnioperator.agent.it;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Pods bound to a simulated node (spec.nodeName set, no kubelet runs them): the source of truth.
 */
final class Pods {
  private Pods() {}

  static Pod create(KubernetesClient client, String node, String name) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace("default")
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("c")
            .withImage("registry.invalid/none:1")
            .endContainer()
            .endSpec()
            .build();
    return client.pods().inNamespace("default").resource(pod).create();
  }

  static void delete(KubernetesClient client, String name) {
    client.pods().inNamespace("default").withName(name).withGracePeriod(0).delete();
  }
}
