package dev.cnioperator.api.reasons;

/**
 * The reason of a condition in a CniNetwork's or a CniNode's status, and of the two status fields
 * that read like one: a CniNetwork's status.rollout.failure ({@link #PROBE_FAILED}, {@link
 * #NO_REPORT}) and a CniNode's status.runtime ({@link #RUNTIME_UNREACHABLE}, else the runtime's
 * own). Each constant's argument is what status holds; its comment says where it is written. One
 * reason can serve several conditions.
 */
public enum ConditionReason {
  // CniNetwork Accepted

  /** Accepted True: the spec is rendered and nodes get it. */
  ACCEPTED("Accepted"),
  /** Accepted False: the CNI configuration or template of the spec is invalid. */
  INVALID_CONFIGURATION("InvalidConfiguration"),
  /** Accepted False: spec.nodeSelector is not a valid label selector. */
  INVALID_NODE_SELECTOR("InvalidNodeSelector"),
  /** Accepted False: spec.nodeSlices cannot be cut into slices. */
  INVALID_NODE_SLICES("InvalidNodeSlices"),
  /**
   * Accepted False: the spec has a field this operator does not know (written for a newer version,
   * as after a rollback); CniNode Ready False: the same of the node's spec and its agent.
   */
  UNKNOWN_FIELDS("UnknownFields"),
  /** Accepted False: an older network's name is on a node; AttachmentDefinitions: a foreign NAD. */
  CONFLICT("Conflict"),

  // CniNetwork Ready, Degraded

  /** Ready True: every selected node holds and proved the revision, and no pod fails there. */
  READY("Ready"),
  /** Ready, RolledOut and AttachmentDefinitions False: no revision is accepted (see Accepted). */
  NOT_ACCEPTED("NotAccepted"),
  /** Ready False: spec.nodeSelector selects no node that can hold the network. */
  NO_NODES_SELECTED("NoNodesSelected"),
  /** Ready False: some selected nodes do not hold the revision yet. */
  APPLYING("Applying"),
  /** Ready False: every selected node holds the revision, some have not proven it yet. */
  PROVING("Proving"),
  /** Ready False: some nodes lack a value the network's template uses. */
  WAITING_FOR_NODE_VALUES("WaitingForNodeValues"),
  /** Ready False, Degraded True: a node could not write the file, or another file has its name. */
  APPLY_FAILED("ApplyFailed"),
  /** Ready False, Degraded True, CniNode Ready False, rollout failure: a node's probe failed. */
  PROBE_FAILED("ProbeFailed"),
  /** Ready False, Degraded True: live pods of the network fail CNI CHECK. */
  ATTACHMENTS_FAILING("AttachmentsFailing"),
  /** Ready False: the nodes are ready, but a NetworkAttachmentDefinition is missing. */
  ATTACHMENT_DEFINITIONS_MISSING("AttachmentDefinitionsMissing"),
  /** Degraded False: no node reports a failure. */
  AS_EXPECTED("AsExpected"),

  // CniNetwork RolledOut, status.rollout.failure

  /** RolledOut True: every selected node holds and proved the newest revision. */
  ROLLED_OUT("RolledOut"),
  /** RolledOut False: the newest revision is going to the nodes, batch by batch. */
  PROGRESSING("Progressing"),
  /** RolledOut False: an admitted node failed the revision; no further node takes it. */
  PAUSED("Paused"),
  /** RolledOut False: an admitted node failed the revision; the stable one is back on nodes. */
  ROLLED_BACK("RolledBack"),
  /** status.rollout.failure: an admitted node did not report on the revision in time. */
  NO_REPORT("NoReport"),

  // CniNetwork PluginsAppended

  /** PluginsAppended True: another installer appended plugins to the file on some nodes. */
  PLUGINS_APPENDED("PluginsAppended"),
  /** PluginsAppended False: no node reports plugins appended by another installer. */
  OWN_PLUGINS_ONLY("OwnPluginsOnly"),

  // CniNetwork AttachmentDefinitions (Multus), with CONFLICT and NOT_ACCEPTED

  /** AttachmentDefinitions True: every chosen namespace has the network's definition. */
  CREATED("Created"),
  /** AttachmentDefinitions False: a chosen namespace name or selector is invalid. */
  INVALID_NAMESPACES("InvalidNamespaces"),
  /** AttachmentDefinitions False: listing or writing the definitions failed. */
  FAILED("Failed"),
  /** AttachmentDefinitions False: the NetworkAttachmentDefinition CRD is not installed. */
  NOT_INSTALLED("NotInstalled"),

  // CniNode Ready, status.runtime

  /** A CniNode's Ready True: every network of its spec is applied and proven. */
  ALL_NETWORKS_APPLIED("AllNetworksApplied"),
  /** A CniNode's Ready False: some network of its spec is not applied. */
  NETWORKS_NOT_APPLIED("NetworksNotApplied"),
  /** A CniNode's status.runtime: the agent cannot reach the container runtime over CRI. */
  RUNTIME_UNREACHABLE("RuntimeUnreachable"),

  // CniNode PodNetworkReady

  /** True: the pod network and every chain declared onto it are in place and proven. */
  POD_NETWORK_PROVEN("PodNetworkProven"),
  /** False: the runtime's directory holds no network configuration. */
  NO_POD_NETWORK("NoPodNetwork"),
  /** False: the pod network, or a chain declared onto it, is not in place or not proven yet. */
  CHAIN_NOT_PROVEN("ChainNotProven"),
  /** False: the runtime loads Multus's copy of the pod network, and the copy is not current. */
  STALE_COPY("StaleCopy");

  private final String wire;

  ConditionReason(String wire) {
    this.wire = wire;
  }

  /** The string written in status, as {@code kubectl describe} shows it. */
  public String wire() {
    return wire;
  }

  /** Whether {@code reason}, as read from a status, is this one. */
  public boolean is(String reason) {
    return wire.equals(reason);
  }

  /** The wire value, so that a message or a log line shows what a person sees in the status. */
  @Override
  public String toString() {
    return wire;
  }
}
