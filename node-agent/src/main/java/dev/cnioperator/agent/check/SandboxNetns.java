package dev.cnioperator.agent.check;

import java.util.Optional;

/**
 * Where a sandbox's network namespace is when libcni's cache entry does not say: libcni before 1.2
 * (containerd 1.6 and 1.7) caches no netns, and CHECK cannot run without one.
 */
@FunctionalInterface
public interface SandboxNetns {
  /** Knows no namespace: CHECK runs with the cached netns only. */
  SandboxNetns NONE = containerId -> Optional.empty();

  /** The netns path of the sandbox whose id is {@code containerId}, if it is known. */
  Optional<String> of(String containerId);
}
