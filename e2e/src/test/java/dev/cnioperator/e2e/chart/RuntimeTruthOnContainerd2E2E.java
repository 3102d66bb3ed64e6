package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.containerd.ContainerdRelease;

/**
 * {@link RuntimeTruthE2E} on containerd 2.x, built from the Go module proxy (libcni 1.2+: caches
 * the netns, calls STATUS on 1.1.0 networks).
 */
class RuntimeTruthOnContainerd2E2E extends RuntimeTruthE2E {
  @Override
  ContainerdRelease release() {
    return ContainerdRelease.V2_X;
  }
}
