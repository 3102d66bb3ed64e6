package dev.cnioperator.agent.cleanup;

import java.util.Map;
import java.util.Set;

/**
 * A fresh read of the pods the API server has on this node: the source of truth for which
 * attachments are live.
 *
 * @param uidByPod pod UID by "namespace/name"
 * @param ips every pod IP on the node
 */
public record LivePods(Map<String, String> uidByPod, Set<String> ips) {

  public boolean has(String namespace, String name) {
    return uidByPod.containsKey(namespace + "/" + name);
  }

  public String uid(String namespace, String name) {
    return uidByPod.get(namespace + "/" + name);
  }
}
