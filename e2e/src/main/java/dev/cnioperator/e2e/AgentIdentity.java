package dev.cnioperator.e2e;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReference;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReferenceBuilder;

/**
 * The node agent's identity as the DaemonSet gives it: a Pod on the node (made by the test, never
 * run) and a token of the agent's ServiceAccount bound to it, so that the token names the node and
 * the chart's admission policy holds the agent to its own CniNode.
 */
public final class AgentIdentity {
  private AgentIdentity() {}

  /**
   * The agent's Pod on {@code nodeName} running as {@code serviceAccount}; metadata is the
   * caller's.
   */
  public static PodBuilder pod(String nodeName, String serviceAccount) {
    return new PodBuilder()
        .withNewSpec()
        .withNodeName(nodeName)
        .withServiceAccountName(serviceAccount)
        .addNewContainer()
        .withName("agent")
        .withImage("registry.invalid/cni-operator/node-agent:never-pulled")
        .endContainer()
        .endSpec();
  }

  /** What a token is bound to: {@code object}, of {@code kind} in the core API group. */
  public static BoundObjectReference boundTo(String kind, ObjectMeta object) {
    return new BoundObjectReferenceBuilder()
        .withApiVersion("v1")
        .withKind(kind)
        .withName(object.getName())
        .withUid(object.getUid())
        .build();
  }
}
