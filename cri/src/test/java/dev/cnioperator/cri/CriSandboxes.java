package dev.cnioperator.cri;

import dev.cnioperator.cri.v1.LinuxPodSandboxConfig;
import dev.cnioperator.cri.v1.LinuxSandboxSecurityContext;
import dev.cnioperator.cri.v1.NamespaceMode;
import dev.cnioperator.cri.v1.NamespaceOption;
import dev.cnioperator.cri.v1.PodSandboxMetadata;
import dev.cnioperator.cri.v1.RemovePodSandboxRequest;
import dev.cnioperator.cri.v1.RunPodSandboxRequest;
import dev.cnioperator.cri.v1.StopPodSandboxRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, stops and removes pod sandboxes through a {@link CriRuntimeClient}: what tests do and the
 * agent never does, so it is kept out of the client the agent ships.
 */
final class CriSandboxes {
  private static final Logger log = LoggerFactory.getLogger(CriSandboxes.class);

  private final CriRuntimeClient client;

  CriSandboxes(CriRuntimeClient client) {
    this.client = client;
  }

  /**
   * CRI {@code RunPodSandbox} with the runtime's default handler: the runtime makes the network
   * namespace, runs the CNI ADD and starts the pause process. Returns the sandbox id.
   */
  String run(PodSandboxConfig config) throws CriException {
    String id =
        client.call(
            "RunPodSandbox", stub -> stub.runPodSandbox(runRequest(config, "")).getPodSandboxId());
    log.info(
        "cri sandbox started id={} pod={}/{} uid={}",
        id,
        config.namespace(),
        config.name(),
        config.uid());
    return id;
  }

  /** CRI {@code StopPodSandbox}: the runtime runs the CNI DEL and stops the sandbox. */
  void stop(String podSandboxId) throws CriException {
    client.call(
        "StopPodSandbox",
        stub ->
            stub.stopPodSandbox(
                StopPodSandboxRequest.newBuilder().setPodSandboxId(podSandboxId).build()));
  }

  /** CRI {@code RemovePodSandbox}: the runtime forgets a stopped sandbox. */
  void remove(String podSandboxId) throws CriException {
    client.call(
        "RemovePodSandbox",
        stub ->
            stub.removePodSandbox(
                RemovePodSandboxRequest.newBuilder().setPodSandboxId(podSandboxId).build()));
  }

  static RunPodSandboxRequest runRequest(PodSandboxConfig c, String runtimeHandler) {
    var metadata =
        PodSandboxMetadata.newBuilder()
            .setName(c.name())
            .setNamespace(c.namespace())
            .setUid(c.uid())
            .setAttempt(c.attempt());
    // The pod gets its own network namespace: that is what makes the runtime call CNI ADD.
    var linux =
        LinuxPodSandboxConfig.newBuilder()
            .setSecurityContext(
                LinuxSandboxSecurityContext.newBuilder()
                    .setNamespaceOptions(
                        NamespaceOption.newBuilder()
                            .setNetwork(NamespaceMode.POD)
                            .setPid(NamespaceMode.POD)
                            .setIpc(NamespaceMode.POD)));
    var config =
        dev.cnioperator.cri.v1.PodSandboxConfig.newBuilder()
            .setMetadata(metadata)
            .setHostname(c.name())
            .putAllLabels(c.labels())
            .putAllAnnotations(c.annotations())
            .setLinux(linux);
    return RunPodSandboxRequest.newBuilder()
        .setConfig(config)
        .setRuntimeHandler(runtimeHandler)
        .build();
  }
}
