package dev.cnioperator.agent.cleanup;

import java.util.Map;
import java.util.Set;

/**
 * A fresh read of what is live on this node: the pods the API server has here, or the pod sandboxes
 * the container runtime lists.
 *
 * @param uidByPod pod UID by "namespace/name" (API server source; empty from the runtime)
 * @param ips every pod IP on the node
 * @param sandboxIds the runtime's sandbox ids, which are the CNI container ids; null when the API
 *     server is the source
 */
public record LivePods(Map<String, String> uidByPod, Set<String> ips, Set<String> sandboxIds) {

  /** Pods as the API server lists them. */
  public static LivePods fromApiServer(Map<String, String> uidByPod, Set<String> ips) {
    return new LivePods(uidByPod, ips, null);
  }

  /** Sandboxes as the container runtime lists them. */
  public static LivePods fromRuntime(Set<String> sandboxIds, Set<String> ips) {
    return new LivePods(Map.of(), ips, sandboxIds);
  }

  public boolean fromRuntime() {
    return sandboxIds != null;
  }

  public boolean has(String namespace, String name) {
    return uidByPod.containsKey(namespace + "/" + name);
  }

  public String uid(String namespace, String name) {
    return uidByPod.get(namespace + "/" + name);
  }

  /** True when the runtime still lists a sandbox with this container id. */
  public boolean hasSandbox(String containerId) {
    return sandboxIds != null && sandboxIds.contains(containerId);
  }
}
