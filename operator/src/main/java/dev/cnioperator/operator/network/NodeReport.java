package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.operator.template.NodeConflist;

/**
 * What one selected node's agent says about one network; {@code report} is null when the agent has
 * not reported it (yet, or no agent runs there). {@code expected} is what the node should hold of
 * the accepted revision (its own rendering, or why it cannot have it); null means the revision as
 * it is, the same on every node.
 */
public record NodeReport(String node, NodeNetworkStatus report, NodeConflist expected) {

  /** Why this node cannot have the network, when it lacks a value the network uses. */
  public String waitingFor() {
    return expected instanceof NodeConflist.Waiting w ? w.message() : null;
  }

  /** The sha256 this node should report applied, given the revision's own. */
  String expectedSha256(String revisionSha256) {
    if (expected == null) {
      return revisionSha256;
    }
    return expected instanceof NodeConflist.Ready r ? r.sha256() : null;
  }
}
