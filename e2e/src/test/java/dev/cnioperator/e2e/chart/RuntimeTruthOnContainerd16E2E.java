package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.containerd.ContainerdRelease;

/** {@link RuntimeTruthE2E} on Debian's containerd 1.6 (libcni 1.1: no netns in its cache). */
class RuntimeTruthOnContainerd16E2E extends RuntimeTruthE2E {
  @Override
  ContainerdRelease release() {
    return ContainerdRelease.DEBIAN_1_6;
  }
}
