package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;

/**
 * What one selected node's agent says about one network; {@code report} is null when the agent has
 * not reported it (yet, or no agent runs there).
 */
public record NodeReport(String node, NodeNetworkStatus report) {}
