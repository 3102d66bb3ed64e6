package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.containerd.ContainerdRelease;

/**
 * {@link DeclaredChainBurstE2E} on containerd 2.x (libcni 1.3, which loads drop-ins): the chain as
 * drop-in files, the primary's file never touched, every pod of the burst with the chain.
 */
class DeclaredChainBurstOnContainerd2E2E extends DeclaredChainBurstE2E {
  @Override
  ContainerdRelease runtime() {
    return ContainerdRelease.V2_X;
  }
}
