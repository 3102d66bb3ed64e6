package dev.cnioperator.agent.kube;

import dev.cnioperator.agent.cleanup.LivePods;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** A fresh list of the pods on this node (field selector spec.nodeName), never a cache. */
public final class PodSource {
  private final KubernetesClient client;
  private final String nodeName;

  public PodSource(KubernetesClient client, String nodeName) {
    this.client = client;
    this.nodeName = nodeName;
  }

  /**
   * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server cannot be
   *     read; the caller then runs no cleanup
   */
  public LivePods read() {
    Map<String, String> uids = new HashMap<>();
    Set<String> ips = new HashSet<>();
    for (Pod p :
        client.pods().inAnyNamespace().withField("spec.nodeName", nodeName).list().getItems()) {
      uids.put(
          p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(),
          p.getMetadata().getUid());
      if (p.getStatus() != null && p.getStatus().getPodIPs() != null) {
        for (PodIP ip : p.getStatus().getPodIPs()) {
          ips.add(ip.getIp());
        }
      }
      if (p.getStatus() != null && p.getStatus().getPodIP() != null) {
        ips.add(p.getStatus().getPodIP());
      }
    }
    return new LivePods(uids, ips);
  }
}
