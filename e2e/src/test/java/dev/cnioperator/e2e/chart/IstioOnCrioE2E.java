package dev.cnioperator.e2e.chart;

import dev.cnioperator.testkit.crio.CrioRelease;

/**
 * {@link IstioOnKubeletE2E} on a CRI-O 1.34 node: Istio's install-cni chains its plugin into the
 * product's pod network file, neither writes it again, an edit is rolled out with Istio's entry
 * carried over, and CRI-O's pods go through istio-cni.
 */
class IstioOnCrioE2E extends IstioOnKubeletE2E {
  @Override
  CrioRelease runtime() {
    return CrioRelease.V1_34;
  }
}
