package dev.cnioperator.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.agent.network.SandboxNetns;
import dev.cnioperator.cri.CriException;
import java.io.IOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sandbox's network namespace as the runtime knows it: the network entry of the OCI spec in the
 * verbose CRI {@code PodSandboxStatus} info ({@code info.runtimeSpec.linux.namespaces}, as
 * containerd and CRI-O report it).
 */
public final class CriSandboxNetns implements SandboxNetns {
  private static final Logger LOG = LoggerFactory.getLogger(CriSandboxNetns.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CriConnection cri;

  public CriSandboxNetns(CriConnection cri) {
    this.cri = cri;
  }

  @Override
  public Answer of(String containerId) {
    try {
      String info = cri.client().podSandboxInfo(containerId).get("info");
      Optional<String> path =
          info == null ? Optional.empty() : networkNamespace(JSON.readTree(info));
      return path.<Answer>map(Known::new)
          .orElseGet(
              () ->
                  new Unknown(
                      "the runtime at "
                          + cri.socket()
                          + " names no network namespace for sandbox "
                          + containerId));
    } catch (CriException | IOException e) {
      // Not knowing the namespace says nothing about the attachment: it is left unchecked.
      LOG.debug(
          "event=sandbox-netns-unknown container={} error=\"{}\"", containerId, e.getMessage());
      return new Unknown(
          "libcni's cache names no network namespace and the runtime at "
              + cri.socket()
              + " did not say: "
              + e.getMessage());
    }
  }

  /** The network namespace path in a runtime's verbose sandbox info, if it names one. */
  public static Optional<String> networkNamespace(JsonNode info) {
    for (JsonNode ns : info.path("runtimeSpec").path("linux").path("namespaces")) {
      if (ns.path("type").asText().equals("network") && !ns.path("path").asText().isEmpty()) {
        return Optional.of(ns.path("path").asText());
      }
    }
    return Optional.empty();
  }
}
