package dev.cnioperator.operator;

import java.time.Duration;

/**
 * How one operator process runs.
 *
 * @param namespace where the leader-election Lease lives
 * @param leaderElection whether replicas elect a leader through a Lease (only it reconciles)
 * @param identity this replica's name in the Lease
 * @param finalizerTimeout how long a deleted CniNetwork waits for agents to report removal
 */
public record OperatorSettings(
    String namespace, boolean leaderElection, String identity, Duration finalizerTimeout) {

  /** The name of the Lease replicas compete for. */
  public static final String LEASE_NAME = "cni-operator-leader";
}
