package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.containerd.ContainerdRelease;

/**
 * {@link DeclaredChainBurstE2E} on containerd 1.7 (libcni 1.1, no drop-ins): the chain held in
 * place with the status saying why, the burst's rewrites re-appended until the file is Contested.
 */
class DeclaredChainBurstOnContainerd17E2E extends DeclaredChainBurstE2E {
  @Override
  ContainerdRelease runtime() {
    return ContainerdRelease.V1_7;
  }
}
