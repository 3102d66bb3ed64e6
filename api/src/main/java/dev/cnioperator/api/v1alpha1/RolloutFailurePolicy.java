package dev.cnioperator.api.v1alpha1;

/** What a rollout does when a node fails to prove the new revision: spec.rollout.onFailure. */
public enum RolloutFailurePolicy {
  /** The nodes that took the new revision get the stable one back, and the rollout stops. */
  Rollback,
  /** The nodes keep what they hold and no further node takes the new revision. */
  Pause
}
