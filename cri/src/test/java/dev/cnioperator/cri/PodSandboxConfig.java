package dev.cnioperator.cri;

import java.util.Map;

/**
 * What a pod sandbox is started with: the Kubernetes metadata (pod name, namespace, UID, attempt)
 * that the runtime passes to the CNI plugins in {@code CNI_ARGS}, labels and annotations. The
 * sandbox always gets its own network namespace (CRI {@code NamespaceMode.POD}), as a pod without
 * host networking does.
 */
public record PodSandboxConfig(
    String name,
    String namespace,
    String uid,
    int attempt,
    Map<String, String> labels,
    Map<String, String> annotations) {

  public PodSandboxConfig {
    requireNonBlank(name, "name");
    requireNonBlank(namespace, "namespace");
    requireNonBlank(uid, "uid");
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }

  /** A first attempt without labels or annotations. */
  public static PodSandboxConfig of(String name, String namespace, String uid) {
    return new PodSandboxConfig(name, namespace, uid, 0, Map.of(), Map.of());
  }

  public PodSandboxConfig withLabels(Map<String, String> newLabels) {
    return new PodSandboxConfig(name, namespace, uid, attempt, newLabels, annotations);
  }

  private static void requireNonBlank(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("pod sandbox config: metadata." + field + " is empty");
    }
  }
}
