package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;

/**
 * What the operator observed of a CniNetwork: the accepted revision and how the selected nodes hold
 * it.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public CniNetworkStatus withObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
    return this;
  }

  public String getNetworkName() {
    return networkName;
  }

  public void setNetworkName(String networkName) {
    this.networkName = networkName;
  }

  public CniNetworkStatus withNetworkName(String networkName) {
    this.networkName = networkName;
    return this;
  }

  public RenderedConfig getRendered() {
    return rendered;
  }

  public void setRendered(RenderedConfig rendered) {
    this.rendered = rendered;
  }

  public CniNetworkStatus withRendered(RenderedConfig rendered) {
    this.rendered = rendered;
    return this;
  }

  public NodeCounts getNodes() {
    return nodes;
  }

  public void setNodes(NodeCounts nodes) {
    this.nodes = nodes;
  }

  public CniNetworkStatus withNodes(NodeCounts nodes) {
    this.nodes = nodes;
    return this;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public CniNetworkStatus withConditions(List<Condition> conditions) {
    this.conditions = conditions;
    return this;
  }

  public RolloutStatus getRollout() {
    return rollout;
  }

  public void setRollout(RolloutStatus rollout) {
    this.rollout = rollout;
  }

  public CniNetworkStatus withRollout(RolloutStatus rollout) {
    this.rollout = rollout;
    return this;
  }

  public List<NodeSlice> getSlices() {
    return slices;
  }

  public void setSlices(List<NodeSlice> slices) {
    this.slices = slices;
  }

  public CniNetworkStatus withSlices(List<NodeSlice> slices) {
    this.slices = slices;
    return this;
  }

  public List<String> getAttachmentDefinitions() {
    return attachmentDefinitions;
  }

  public void setAttachmentDefinitions(List<String> attachmentDefinitions) {
    this.attachmentDefinitions = attachmentDefinitions;
  }

  public CniNetworkStatus withAttachmentDefinitions(List<String> attachmentDefinitions) {
    this.attachmentDefinitions = attachmentDefinitions;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CniNetworkStatus other)) {
      return false;
    }
    return Objects.equals(observedGeneration, other.observedGeneration)
        && Objects.equals(networkName, other.networkName)
        && Objects.equals(rendered, other.rendered)
        && Objects.equals(nodes, other.nodes)
        && Objects.equals(conditions, other.conditions)
        && Objects.equals(rollout, other.rollout)
        && Objects.equals(slices, other.slices)
        && Objects.equals(attachmentDefinitions, other.attachmentDefinitions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        observedGeneration,
        networkName,
        rendered,
        nodes,
        conditions,
        rollout,
        slices,
        attachmentDefinitions);
  }

  @Override
  public String toString() {
    return "CniNetworkStatus{observedGeneration="
        + observedGeneration
        + ", networkName="
        + networkName
        + ", rendered="
        + rendered
        + ", nodes="
        + nodes
        + ", conditions="
        + conditions
        + ", rollout="
        + rollout
        + ", slices="
        + slices
        + ", attachmentDefinitions="
        + attachmentDefinitions
        + "}";
  }
}
