package dev.cnioperator.api.v1alpha1;

/** The outcome of a node's probe of one revision: CniNode status.networks[].probe.result. */
public enum ProbeResult {
  Passed,
  Failed
}
