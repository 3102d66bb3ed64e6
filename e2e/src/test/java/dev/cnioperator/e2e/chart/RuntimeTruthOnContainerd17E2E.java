package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.containerd.ContainerdRelease;

/**
 * {@link RuntimeTruthE2E} on containerd 1.7, built from the Go module proxy (libcni 1.1: no netns
 * in its cache).
 */
class RuntimeTruthOnContainerd17E2E extends RuntimeTruthE2E {
  @Override
  ContainerdRelease release() {
    return ContainerdRelease.V1_7;
  }
}
