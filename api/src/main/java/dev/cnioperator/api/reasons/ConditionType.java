package dev.cnioperator.api.reasons;

/**
 * The type of a condition in a CniNetwork's or a CniNode's status.conditions. Each constant's
 * argument is what status holds, and what {@code kubectl wait --for=condition=} names.
 */
public enum ConditionType {
  /** CniNetwork: the current generation's spec is valid and no older network clashes with it. */
  ACCEPTED("Accepted"),
  /** CniNetwork: its nodes hold and proved the revision; CniNode: its networks are applied. */
  READY("Ready"),
  /** CniNetwork: some node reports a failed apply, a failed probe or failing pods. */
  DEGRADED("Degraded"),
  /** CniNetwork: every selected node holds and proved the newest revision. */
  ROLLED_OUT("RolledOut"),
  /** Multus CniNetwork: every chosen namespace has its NetworkAttachmentDefinition. */
  ATTACHMENT_DEFINITIONS("AttachmentDefinitions"),
  /** CniNetwork: on some node another installer appended plugins to its file, and they are kept. */
  PLUGINS_APPENDED("PluginsAppended"),
  /**
   * CniNode: the runtime's pod network on the node, with every chain the node's networks declare
   * onto it ({@code spec.appendTo}), is in place and proven; what the pod network taint waits for.
   */
  POD_NETWORK_READY("PodNetworkReady");

  private final String wire;

  ConditionType(String wire) {
    this.wire = wire;
  }

  /** The string written in status, as {@code kubectl} shows it. */
  public String wire() {
    return wire;
  }

  /** Whether {@code type}, as read from a status, is this one. */
  public boolean is(String type) {
    return wire.equals(type);
  }

  /** The wire value, so that a message or a log line shows what a person sees in the status. */
  @Override
  public String toString() {
    return wire;
  }
}
