package dev.cnioperator.agent.kube;

import dev.cnioperator.agent.cleanup.LivePods;
import dev.cnioperator.agent.cleanup.SourceOfTruth;
import dev.cnioperator.runtime.client.CallDeadline;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A fresh list of the pods on this node (field selector spec.nodeName), never a cache. */
public final class PodSource implements SourceOfTruth {
  private final KubernetesClient client;
  private final String nodeName;
  private final CallDeadline deadline;

  public PodSource(KubernetesClient client, String nodeName, CallDeadline deadline) {
    this.client = client;
    this.nodeName = nodeName;
    this.deadline = deadline;
  }

  @Override
  public String name() {
    return "api-server";
  }

  @Override
  public LivePods read() {
    List<Pod> items;
    try {
      items =
          deadline.call(
              "list the pods on node " + nodeName,
              () ->
                  client
                      .pods()
                      .inAnyNamespace()
                      .withField("spec.nodeName", nodeName)
                      .list()
                      .getItems());
    } catch (KubernetesClientException e) {
      throw new Unavailable("pods on this node cannot be read from the API server", e);
    }
    Map<String, String> uids = new HashMap<>();
    Set<String> ips = new HashSet<>();
    for (Pod p : items) {
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
    return LivePods.fromApiServer(uids, ips);
  }
}
