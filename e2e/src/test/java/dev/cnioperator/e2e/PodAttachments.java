package dev.cnioperator.e2e;

import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.CniRuntime;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Pods on a sandbox node with real attachments, as a kubelet's runtime would leave them: a Pod
 * object bound to the node, a network namespace, and an ADD through the node's conflist with the
 * Kubernetes CNI_ARGS, made by the cni library or by libcni's cnitool. Closing deletes what is left
 * (DEL with the same tool, the namespaces, the Pods).
 */
public final class PodAttachments implements AutoCloseable {

  /** A pod's attachment to the network of one conflist, made by the library or by cnitool. */
  public record PodAttachment(
      Pod pod,
      NetworkNamespace netns,
      NetworkConfigList list,
      String containerId,
      boolean byCnitool) {
    public String name() {
      return pod.getMetadata().getName();
    }
  }

  private final KubernetesClient client;
  private final SandboxNode node;
  private final String namespace;
  private final List<PodAttachment> made = new ArrayList<>();

  public PodAttachments(KubernetesClient client, SandboxNode node, String namespace) {
    this.client = client;
    this.node = node;
    this.namespace = namespace;
  }

  /** A Pod on the node with an attachment to the network in {@code fileName}, by the library. */
  public PodAttachment addWithLibrary(String podName, String fileName) {
    Pod pod = createPod(podName);
    NetworkNamespace netns = NetworkNamespace.create("pod");
    String containerId = "e2e" + pod.getMetadata().getUid().replace("-", "");
    PodAttachment a = new PodAttachment(pod, netns, list(fileName), containerId, false);
    made.add(a);
    runtime().addNetworkList(a.list(), attachment(a));
    return a;
  }

  /**
   * A Pod on the node with an attachment made by cnitool, which derives the container id from the
   * netns path and caches in libcni's /var/lib/cni (so the node's agent must read that cache).
   */
  public PodAttachment addWithCnitool(String podName, String fileName) {
    Pod pod = createPod(podName);
    NetworkNamespace netns = NetworkNamespace.create("pod");
    PodAttachment a = new PodAttachment(pod, netns, list(fileName), null, true);
    made.add(a);
    cnitool("add", a).orThrow("cnitool add");
    return a;
  }

  /** Breaks the attachment behind the runtime's back: its interface disappears. */
  public void breakInterface(PodAttachment a) {
    a.netns().exec("ip", "link", "del", "eth0");
  }

  /**
   * What a crashed runtime leaves: the Pod and the namespace are gone, the IPAM reservation and the
   * cache entry stay.
   */
  public void vanishWithoutDel(PodAttachment a) {
    client.pods().inNamespace(namespace).withName(a.name()).withGracePeriod(0).delete();
    a.netns().close();
  }

  @Override
  public void close() {
    for (PodAttachment a : made) {
      try {
        // DEL is idempotent: nothing happens to an attachment the agent already reclaimed.
        if (a.byCnitool()) {
          cnitool("del", a);
        } else {
          runtime().delNetworkList(a.list(), attachment(a));
        }
      } catch (RuntimeException e) {
        // best effort; the namespace and the Pod still go below
      }
      a.netns().close();
    }
    client.pods().inNamespace(namespace).withGracePeriod(0).delete();
  }

  private Pod createPod(String podName) {
    return client
        .pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(podName)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node.name())
                .addNewContainer()
                .withName("app")
                .withImage("app:local")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private Attachment attachment(PodAttachment a) {
    return Attachment.of(a.containerId(), a.netns().path().toString(), "eth0")
        .withCniArgs(podArgs(a));
  }

  /** What kubelet's runtimes pass; IgnoreUnknown keeps plugins from refusing the K8S_ keys. */
  private List<CniArg> podArgs(PodAttachment a) {
    return List.of(
        new CniArg("IgnoreUnknown", "1"),
        new CniArg("K8S_POD_NAMESPACE", namespace),
        new CniArg("K8S_POD_NAME", a.name()),
        new CniArg("K8S_POD_UID", a.pod().getMetadata().getUid()));
  }

  private CniRuntime runtime() {
    return new CniRuntime(
        new ProcessPluginExecutor(),
        List.of(node.binDir()),
        new ResultCache(node.cacheDir()),
        Duration.ofSeconds(30));
  }

  private NetworkConfigList list(String fileName) {
    try {
      return NetworkConfigList.parse(Files.readAllBytes(node.confDir().resolve(fileName)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private CommandResult cnitool(String verb, PodAttachment a) {
    return Commands.run(
        List.of(ToolPaths.cnitool().toString(), verb, a.list().name(), a.netns().path().toString()),
        Map.of(
            "NETCONFPATH",
            node.confDir().toString(),
            "CNI_PATH",
            node.binDir().toString(),
            "CNI_ARGS",
            CniArg.format(podArgs(a))),
        null,
        Duration.ofMinutes(1));
  }
}
