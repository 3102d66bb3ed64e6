package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Optional;
import lombok.Data;

/** What a node's agent reports of the node: each network's state, attachments, IPAM and plugins. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class CniNodeStatus {

  @JsonPropertyDescription("Per managed network, what the agent did and saw.")
  private List<NodeNetworkStatus> networks;

  @JsonPropertyDescription("Plugin binaries present on the node.")
  private List<InstalledPlugin> plugins;

  @JsonPropertyDescription(
      "Name of the network whose file sorts first in the configuration directory, which runtimes use by default (may be one the agent does not manage).")
  private String defaultNetwork;

  @JsonPropertyDescription(
      "The file the runtime loads as its pod network, who wrote it, and whether a copy of one of this node's networks in it (Multus's delegate) is that network's current content.")
  private RuntimeDefaultFile defaultFile;

  @JsonPropertyDescription(
      "What the container runtime says about the pod network (CRI Status NetworkReady); only when the agent runs with --cri-socket.")
  private RuntimeNetwork runtime;

  @JsonPropertyDescription("Totals over networks, for kubectl get.")
  private NodeSummary summary;

  @JsonPropertyDescription(
      "When the agent process that wrote this status started (RFC 3339, seconds). The operator trusts the PodNetworkReady condition for the pod network taint only when the agent started after its container did, so a status left by an earlier agent, before the node or the agent restarted, does not count.")
  private String agentStartTime;

  @JsonPropertyDescription("The CniNode metadata.generation the agent last acted on.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "Node-level conditions: Ready (every network applied and proven) and PodNetworkReady (the runtime's pod network, with every chain declared onto it, in place and proven).")
  private List<Condition> conditions;

  @JsonPropertyDescription(
      "Files in Multus's configuration directory that are not the agent's and do not parse: Multus stops at the first such file, so every config-less NetworkAttachmentDefinition fails on this node until it is fixed or removed.")
  private List<UnparsableFile> unparsableFiles;

  /**
   * The agent's report on the network (CniNetwork) {@code name}, if it reports one. A method with a
   * parameter, so neither Jackson nor the CRD generator takes it for a property.
   */
  public Optional<NodeNetworkStatus> network(String name) {
    return networks == null
        ? Optional.empty()
        : networks.stream().filter(n -> name.equals(n.getName())).findFirst();
  }
}
