package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;

/** Where a pod runs, its sandbox and its address: a pod whose network was set up again differs. */
record PodSandbox(String node, String sandboxId, String podIp) {
  static PodSandbox of(KubeletNode node, Pod pod) {
    return new PodSandbox(node.name(), NodePods.sandboxId(node, pod), pod.getStatus().getPodIP());
  }
}
