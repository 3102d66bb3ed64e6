package dev.cnioperator.e2e;

import dev.cnioperator.testkit.TestNames;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Namespaces the e2e tests make for their pods, each with a unique name. */
public final class PodNamespaces {
  private PodNamespaces() {}

  /** Creates a namespace named {@code prefix} plus a unique suffix; returns its name. */
  public static String create(KubernetesClient client, String prefix) {
    String name = TestNames.unique(prefix);
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }
}
