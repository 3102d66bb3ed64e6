package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.kube.RuntimeConfDir;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * When the agent reports ready: once this node's conflists are written and, where the agent has the
 * runtime's CRI socket, the runtime has loaded them. The DaemonSet's rolling update waits on this
 * before it moves to the next node.
 *
 * <ul>
 *   <li>No pass has completed: not ready.
 *   <li>No file of the agent's in the runtime's directory (no network selects this node yet, or
 *       only Multus secondary networks do, whose files are in Multus's directory): ready, there is
 *       nothing for the runtime to load.
 *   <li>No CRI socket: ready once the files are written; the agent cannot see what the runtime
 *       loaded, and says so in its log at start.
 *   <li>With a CRI socket: where the runtime says which directory it loads (containerd), it must be
 *       the agent's; then the runtime's NetworkReady must be true, and where the runtime says what
 *       it loaded (containerd) and the node's default network is the agent's, the loaded
 *       configuration must be the very file the agent wrote (containerd has been seen to keep an
 *       old one, containerd#11715). A foreign default network is the runtime's business.
 * </ul>
 */
public final class AgentReadiness {
  private AgentReadiness() {}

  /**
   * Why the agent is not ready, or empty when it is.
   *
   * @param pass the last completed pass, null before the first
   * @param criConfigured whether the agent was given the runtime's CRI socket
   * @param runtime the runtime's latest answer, null before the first
   * @param confDir the directory the agent writes the runtime's networks to
   */
  public static Optional<String> notReady(
      NodeSync.Result pass, boolean criConfigured, RuntimeNetwork runtime, Path confDir) {
    if (pass == null) {
      return Optional.of("no pass over the node's files has completed yet");
    }
    // Multus's files are no business of the runtime's: it never loads them, so it cannot have
    // loaded them or not, and none of them is its pod network.
    List<NetworkOutcome> runtimeApplied =
        pass.networks().stream()
            .filter(NetworkOutcome::inRuntimeDirectory)
            .filter(o -> o.state() == NetworkState.Applied)
            .toList();
    boolean anyOfOurs = !runtimeApplied.isEmpty();
    if (!anyOfOurs || !criConfigured) {
      return Optional.empty();
    }
    if (runtime == null) {
      return Optional.of("the runtime has not answered CRI Status yet");
    }
    Optional<String> elsewhere =
        RuntimeConfDir.mismatch(runtime.getEndpoint(), runtime.getConfDir(), confDir);
    if (elsewhere.isPresent()) {
      return elsewhere;
    }
    if (!Boolean.TRUE.equals(runtime.getNetworkReady())) {
      return Optional.of(
          "the runtime at %s reports NetworkReady=false (%s): %s"
              .formatted(runtime.getEndpoint(), runtime.getReason(), runtime.getMessage()));
    }
    Optional<NetworkOutcome> ours =
        runtimeApplied.stream().filter(o -> o.network().equals(pass.defaultNetwork())).findFirst();
    if (ours.isEmpty() || runtime.getLoadedSha256() == null) {
      return Optional.empty();
    }
    NetworkOutcome d = ours.get();
    if (Objects.equals(runtime.getLoadedNetwork(), d.network())
        && Objects.equals(runtime.getLoadedSha256(), d.fileSha256())) {
      return Optional.empty();
    }
    return Optional.of(
        "the runtime has loaded network %s (sha256 %s), not %s as written in %s (sha256 %s)"
            .formatted(
                runtime.getLoadedNetwork(),
                runtime.getLoadedSha256(),
                d.network(),
                d.fileName(),
                d.fileSha256()));
  }
}
