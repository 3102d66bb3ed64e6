package dev.cnioperator.api.reasons;

/**
 * The reason of an Event the operator or the agent records, each constant's argument as {@code
 * kubectl describe} shows it. Besides these, the operator records an Event on a CniNetwork for
 * every transition of one of its conditions, with the condition's new {@link ConditionReason}.
 */
public enum EventReason {
  /** Warning on a CniNetwork: its deletion finished without every node reporting removal. */
  REMOVAL_TIMED_OUT("RemovalTimedOut"),
  /** Warning on a Pod: the agent's CNI CHECK of one of its attachments failed. */
  CNI_CHECK_FAILED("CniCheckFailed"),
  /** Warning on a CniNode: Multus cannot parse a file in its directory, and stops there. */
  UNPARSABLE_MULTUS_CONFIG("UnparsableMultusConfig"),
  /** Warning on a CniNode: a network's file is taken away after each restore; restores pause. */
  FILE_CONTESTED("FileContested"),
  /**
   * Warning on a CniNode: a network asks to be published to the scheduler, and the cluster's API
   * server cannot keep what its device needs (Kubernetes older than 1.36).
   */
  DEVICES_NOT_PUBLISHED("DevicesNotPublished"),
  /**
   * Warning on a Pod the scheduler cannot place that asks for a network published to the scheduler:
   * on which nodes that network is not proven or has no address left.
   */
  NETWORK_UNSCHEDULABLE("NetworkUnschedulable"),
  /** Normal on a Node: the operator put the pod network taint on it, with why. */
  POD_NETWORK_TAINTED("PodNetworkTainted"),
  /** Normal on a Node: the operator took the pod network taint off, its pod network proven. */
  POD_NETWORK_UNTAINTED("PodNetworkUntainted");

  private final String wire;

  EventReason(String wire) {
    this.wire = wire;
  }

  /** The Event's reason, as {@code kubectl describe} shows it. */
  public String wire() {
    return wire;
  }

  /** The wire value, so that a message or a log line shows what a person sees. */
  @Override
  public String toString() {
    return wire;
  }
}
