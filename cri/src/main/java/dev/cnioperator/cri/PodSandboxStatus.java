package dev.cnioperator.cri;

import java.util.List;
import java.util.Optional;

/**
 * The runtime's status of one pod sandbox: the sandbox itself and the addresses its network got
 * (the primary address first, as CRI orders them; empty when the network is the node's or the
 * sandbox is stopped).
 */
public record PodSandboxStatus(PodSandbox sandbox, List<String> ips) {
  public PodSandboxStatus {
    ips = List.copyOf(ips);
  }

  public Optional<String> primaryIp() {
    return ips.stream().findFirst();
  }
}
