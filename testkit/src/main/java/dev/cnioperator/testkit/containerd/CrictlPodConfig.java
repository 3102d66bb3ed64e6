package dev.cnioperator.testkit.containerd;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;

/**
 * The pod sandbox configuration {@code crictl runp} reads: Kubernetes metadata (pod name,
 * namespace, UID), the labels a kubelet sets, and a network namespace of the pod's own.
 */
final class CrictlPodConfig {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** CRI {@code NamespaceMode.POD}; crictl reads the enum as its number. */
  private static final int NAMESPACE_MODE_POD = 0;

  private CrictlPodConfig() {}

  static String json(String name, String namespace, String uid, Path logDirectory) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode metadata = root.putObject("metadata");
    metadata.put("name", name).put("namespace", namespace).put("uid", uid).put("attempt", 0);
    root.put("hostname", name);
    root.put("log_directory", logDirectory.toString());
    root.putObject("labels")
        .put("io.kubernetes.pod.name", name)
        .put("io.kubernetes.pod.namespace", namespace)
        .put("io.kubernetes.pod.uid", uid);
    root.putObject("linux")
        .putObject("security_context")
        .putObject("namespace_options")
        .put("network", NAMESPACE_MODE_POD);
    return root.toPrettyString();
  }
}
