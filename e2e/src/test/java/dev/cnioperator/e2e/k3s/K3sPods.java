package dev.cnioperator.e2e.k3s;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Real pods on the k3s node, attached by k3s's containerd through whatever network is the node's
 * default; their only container is the sandbox (pause) image the node already holds, so no image is
 * pulled.
 */
final class K3sPods implements AutoCloseable {
  private static final Duration WAIT = Duration.ofMinutes(2);

  private final K3sCluster cluster;
  private final String namespace;
  private final List<String> names = new ArrayList<>();

  K3sPods(K3sCluster cluster, String namespace) {
    this.cluster = cluster;
    this.namespace = namespace;
  }

  /** Starts a pod on the node and waits until it runs with an address. */
  Pod run(String name) {
    KubernetesClient client = cluster.client();
    client
        .pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNodeName(cluster.nodeName())
                .withAutomountServiceAccountToken(false)
                .withTerminationGracePeriodSeconds(0L)
                .addNewContainer()
                .withName("pause")
                .withImage(pauseImage())
                .withImagePullPolicy("Never")
                .endContainer()
                .endSpec()
                .build())
        .create();
    names.add(name);
    return await()
        .atMost(WAIT)
        .until(
            () -> client.pods().inNamespace(namespace).withName(name).get(),
            p ->
                p != null
                    && "Running".equals(p.getStatus().getPhase())
                    && p.getStatus().getPodIP() != null);
  }

  /**
   * Removes the pod's host-local reservation behind the runtime's back, so that host-local's CHECK
   * of the attachment fails ("failed to find address added by container").
   */
  void releaseReservationBehindTheRuntime(Pod pod, String networkName) {
    cluster.removeFile("/var/lib/cni/networks/" + networkName + "/" + pod.getStatus().getPodIP());
  }

  /** The sandbox image: the node has it, since every pod it runs has a sandbox. */
  private String pauseImage() {
    return cluster
        .client()
        .nodes()
        .withName(cluster.nodeName())
        .get()
        .getStatus()
        .getImages()
        .stream()
        .map(ContainerImage::getNames)
        .flatMap(List::stream)
        .filter(n -> n.contains("pause") && !n.contains("@sha256:"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no pause image on the k3s node"));
  }

  /** Deletes the pods (the runtime runs DEL) and waits until they are gone. */
  @Override
  public void close() {
    KubernetesClient client = cluster.client();
    for (String name : names) {
      client.pods().inNamespace(namespace).withName(name).delete();
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                names.stream()
                    .allMatch(n -> client.pods().inNamespace(namespace).withName(n).get() == null));
  }
}
