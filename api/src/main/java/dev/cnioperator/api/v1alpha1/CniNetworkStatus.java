package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import lombok.Data;

/**
 * What the operator observed of a CniNetwork: the accepted revision and how the selected nodes hold
 * it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class CniNetworkStatus {

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "The network name in effect: spec.networkName, or metadata.name when unset.")
  private String networkName;

  @JsonPropertyDescription(
      "The last valid revision of the spec, the one nodes hold; an invalid edit leaves it unchanged.")
  private RenderedConfig rendered;

  @JsonPropertyDescription(
      "How many nodes are selected, hold the rendered sha256, and are healthy.")
  private NodeCounts nodes;

  @JsonPropertyDescription(
      "Accepted (the spec is valid and not in conflict), Ready (every selected node holds the current rendering and reports no failure), Degraded (some node reports a failed apply or failing attachments) and RolledOut (every selected node holds and proved the current rendering; False with reason Progressing, Paused or RolledBack otherwise); for a Multus network also AttachmentDefinitions (every chosen namespace holds its NetworkAttachmentDefinition; False with reason Conflict, InvalidNamespaces, Failed, NotInstalled or NotAccepted otherwise), which Ready then also needs.")
  private List<Condition> conditions;

  @JsonPropertyDescription(
      "The rollout of status.rendered: which revision is stable, how many nodes hold and proved the new one, and which node failed and why.")
  private RolloutStatus rollout;

  @JsonPropertyDescription(
      "Each node's slice of spec.nodeSlices.subnet, by node name; the operator's record of them, read back after a restart. A node the network left stays listed until its agent has removed the network's file, or the Node is deleted.")
  private List<NodeSlice> slices;

  @JsonPropertyDescription(
      "For a Multus network: the namespaces that hold its NetworkAttachmentDefinition, created by the operator.")
  private List<String> attachmentDefinitions;
}
