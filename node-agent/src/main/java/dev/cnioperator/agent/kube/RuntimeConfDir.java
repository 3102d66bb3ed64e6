package dev.cnioperator.agent.kube;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether the runtime loads its CNI configuration from the directory the agent writes to. A chart
 * profile or {@code agent.hostPaths.cniConfDir} that does not match the node's runtime (k3s's
 * containerd reads {@code /var/lib/rancher/k3s/agent/etc/cni/net.d}, not {@code /etc/cni/net.d})
 * leaves every file the agent writes unread: no pod on the node gets its networks, however well the
 * agent's own probe of them goes. containerd names its directory in its verbose CRI Status; CRI-O
 * does not, and then the agent cannot tell and says nothing.
 */
public final class RuntimeConfDir {
  private RuntimeConfDir() {}

  /**
   * Why the runtime never reads the agent's files, when the runtime says where it reads them.
   *
   * @param endpoint the runtime's CRI socket
   * @param runtimeConfDir the directory the runtime says it loads, null when it does not say
   */
  public static Optional<String> mismatch(
      String endpoint, String runtimeConfDir, Path agentConfDir) {
    if (runtimeConfDir == null || runtimeConfDir.isBlank()) {
      return Optional.empty();
    }
    Path theirs = Path.of(runtimeConfDir).toAbsolutePath().normalize();
    Path ours = agentConfDir.toAbsolutePath().normalize();
    if (theirs.equals(ours)) {
      return Optional.empty();
    }
    return Optional.of(
        ("the runtime at %s loads CNI configuration from %s, but this agent writes to %s: no pod"
                + " on this node gets the agent's networks; set the chart's agent.hostPaths.profile"
                + " (or agent.hostPaths.cniConfDir) to the runtime's directory")
            .formatted(endpoint, theirs, ours));
  }
}
