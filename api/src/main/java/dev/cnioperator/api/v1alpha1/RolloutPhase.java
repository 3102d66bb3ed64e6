package dev.cnioperator.api.v1alpha1;

/** Where the rollout of a CniNetwork's newest revision stands: status.rollout.phase. */
public enum RolloutPhase {
  /** Batches of nodes are taking the new revision and proving it. */
  Progressing,
  /** Every selected node holds the revision and has proven it; it is the stable revision now. */
  Complete,
  /** A node failed its probe and onFailure is Pause: no further node takes the revision. */
  Paused,
  /** A node failed its probe; the nodes that took the revision hold the stable one again. */
  RolledBack
}
