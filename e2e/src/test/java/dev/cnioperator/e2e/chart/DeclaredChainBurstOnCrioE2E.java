package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.crio.CrioRelease;

/**
 * {@link DeclaredChainBurstE2E} on CRI-O 1.34 (libcni 1.3): CRI-O loads drop-ins, but deletes and
 * checks a pod with libcni's cached copy of the network's file, which holds none, so the agent
 * holds the chain in place and the status says why; the burst's rewrites are re-appended until the
 * file is Contested, as on containerd 1.7.
 */
class DeclaredChainBurstOnCrioE2E extends DeclaredChainBurstE2E {
  @Override
  CrioRelease runtime() {
    return CrioRelease.V1_34;
  }
}
