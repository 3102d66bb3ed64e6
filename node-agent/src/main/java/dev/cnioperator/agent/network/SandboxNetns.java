package dev.cnioperator.agent.network;

/**
 * Where a sandbox's network namespace is when libcni's cache entry does not say: libcni before 1.2
 * (containerd 1.6 and 1.7) caches no netns, and CHECK cannot run without one.
 */
@FunctionalInterface
public interface SandboxNetns {
  /** Knows no namespace: an entry that caches none cannot be CHECKed. */
  SandboxNetns NONE =
      containerId ->
          new Unknown(
              "libcni's cache names no network namespace (runtimes on libcni before 1.2, such as"
                  + " containerd 1.6 and 1.7, cache none) and the agent has no CRI socket"
                  + " (--cri-socket) to ask the runtime for it");

  /** Knows no namespace: the runtime's socket was given, but nothing was there. */
  static SandboxNetns noSocketAt(java.nio.file.Path socket) {
    Unknown why =
        new Unknown(
            "libcni's cache names no network namespace (runtimes on libcni before 1.2, such as"
                + " containerd 1.6 and 1.7, cache none) and nothing listened at the runtime's"
                + " socket "
                + socket
                + " when the agent started (agent.criSocket.path, agent.hostPaths.profile)");
    return containerId -> why;
  }

  /** The netns of the sandbox whose id is {@code containerId}, or why it is not known. */
  Answer of(String containerId);

  /** What the runtime says of one sandbox's netns. */
  sealed interface Answer permits Known, Unknown {}

  /** The sandbox's netns path. */
  record Known(String path) implements Answer {}

  /** Not known, and why, in words for the status. */
  record Unknown(String reason) implements Answer {}
}
