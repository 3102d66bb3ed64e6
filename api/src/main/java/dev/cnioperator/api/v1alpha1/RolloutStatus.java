package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;
import java.util.Objects;

/**
 * Where the rollout of a CniNetwork's newest accepted revision stands; with the CniNodes' specs
 * (which revision each node holds) it is all a restarted operator needs to resume.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutStatus {

  @JsonPropertyDescription(
      "The revision being rolled out: the sha256 of status.rendered (the network's template before per-node values).")
  @Pattern("^[a-f0-9]{64}$")
  private String revision;

  @JsonPropertyDescription(
      "The last revision every selected node held and proved (or, when stableUnproven is true, the one the nodes held before this rollout); nodes not yet given the new revision hold this one, and a rollback returns to it. Equal to revision once the rollout is complete.")
  @Pattern("^[a-f0-9]{64}$")
  private String stableRevision;

  @JsonPropertyDescription(
      "The stable revision itself, kept here while it differs from status.rendered, so nodes can be given it back.")
  private RenderedConfig stable;

  @JsonPropertyDescription(
      "True when stableRevision was never proven on every node (the network's rollout before this one did not complete): it is only the revision the nodes held before, which a rollback still returns to rather than leave a revision that failed its probe on the node.")
  private Boolean stableUnproven;

  @JsonPropertyDescription(
      "Progressing, Complete, Paused (a node failed and onFailure is Pause) or RolledBack (a node failed and the nodes that took the revision hold the stable one again).")
  private RolloutPhase phase;

  @JsonPropertyDescription(
      "The nodes admitted to the revision in the current batch, by name, sorted. Nodes of earlier batches hold the revision in their CniNode spec.")
  private List<String> batch;

  @JsonPropertyDescription("When the current batch was admitted (RFC 3339).")
  private String batchStartTime;

  @JsonPropertyDescription(
      "When every node of the current batch had proven the revision (RFC 3339); the next batch starts pauseSeconds later.")
  private String batchPassedTime;

  @JsonPropertyDescription("How many nodes the revision selects.")
  private Integer selectedNodes;

  @JsonPropertyDescription("How many selected nodes hold the revision and have proven it.")
  private Integer updatedNodes;

  @JsonPropertyDescription("updatedNodes/selectedNodes, for kubectl get.")
  private String updated;

  @JsonPropertyDescription(
      "The node whose probe failed, and why; cleared when a new revision starts rolling out.")
  private RolloutFailure failure;

  public String getRevision() {
    return revision;
  }

  public void setRevision(String revision) {
    this.revision = revision;
  }

  public RolloutStatus withRevision(String revision) {
    this.revision = revision;
    return this;
  }

  public String getStableRevision() {
    return stableRevision;
  }

  public void setStableRevision(String stableRevision) {
    this.stableRevision = stableRevision;
  }

  public RolloutStatus withStableRevision(String stableRevision) {
    this.stableRevision = stableRevision;
    return this;
  }

  public RenderedConfig getStable() {
    return stable;
  }

  public void setStable(RenderedConfig stable) {
    this.stable = stable;
  }

  public RolloutStatus withStable(RenderedConfig stable) {
    this.stable = stable;
    return this;
  }

  public RolloutPhase getPhase() {
    return phase;
  }

  public void setPhase(RolloutPhase phase) {
    this.phase = phase;
  }

  public RolloutStatus withPhase(RolloutPhase phase) {
    this.phase = phase;
    return this;
  }

  public List<String> getBatch() {
    return batch;
  }

  public void setBatch(List<String> batch) {
    this.batch = batch;
  }

  public RolloutStatus withBatch(List<String> batch) {
    this.batch = batch;
    return this;
  }

  public String getBatchStartTime() {
    return batchStartTime;
  }

  public void setBatchStartTime(String batchStartTime) {
    this.batchStartTime = batchStartTime;
  }

  public RolloutStatus withBatchStartTime(String batchStartTime) {
    this.batchStartTime = batchStartTime;
    return this;
  }

  public String getBatchPassedTime() {
    return batchPassedTime;
  }

  public void setBatchPassedTime(String batchPassedTime) {
    this.batchPassedTime = batchPassedTime;
  }

  public RolloutStatus withBatchPassedTime(String batchPassedTime) {
    this.batchPassedTime = batchPassedTime;
    return this;
  }

  public Integer getSelectedNodes() {
    return selectedNodes;
  }

  public void setSelectedNodes(Integer selectedNodes) {
    this.selectedNodes = selectedNodes;
  }

  public RolloutStatus withSelectedNodes(Integer selectedNodes) {
    this.selectedNodes = selectedNodes;
    return this;
  }

  public Integer getUpdatedNodes() {
    return updatedNodes;
  }

  public void setUpdatedNodes(Integer updatedNodes) {
    this.updatedNodes = updatedNodes;
  }

  public RolloutStatus withUpdatedNodes(Integer updatedNodes) {
    this.updatedNodes = updatedNodes;
    return this;
  }

  public String getUpdated() {
    return updated;
  }

  public void setUpdated(String updated) {
    this.updated = updated;
  }

  public RolloutStatus withUpdated(String updated) {
    this.updated = updated;
    return this;
  }

  public RolloutFailure getFailure() {
    return failure;
  }

  public void setFailure(RolloutFailure failure) {
    this.failure = failure;
  }

  public RolloutStatus withFailure(RolloutFailure failure) {
    this.failure = failure;
    return this;
  }

  public Boolean getStableUnproven() {
    return stableUnproven;
  }

  public void setStableUnproven(Boolean stableUnproven) {
    this.stableUnproven = stableUnproven;
  }

  public RolloutStatus withStableUnproven(Boolean stableUnproven) {
    this.stableUnproven = stableUnproven;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RolloutStatus other)) {
      return false;
    }
    return Objects.equals(revision, other.revision)
        && Objects.equals(stableRevision, other.stableRevision)
        && Objects.equals(stable, other.stable)
        && Objects.equals(stableUnproven, other.stableUnproven)
        && Objects.equals(phase, other.phase)
        && Objects.equals(batch, other.batch)
        && Objects.equals(batchStartTime, other.batchStartTime)
        && Objects.equals(batchPassedTime, other.batchPassedTime)
        && Objects.equals(selectedNodes, other.selectedNodes)
        && Objects.equals(updatedNodes, other.updatedNodes)
        && Objects.equals(updated, other.updated)
        && Objects.equals(failure, other.failure);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        revision,
        stableRevision,
        stable,
        stableUnproven,
        phase,
        batch,
        batchStartTime,
        batchPassedTime,
        selectedNodes,
        updatedNodes,
        updated,
        failure);
  }

  @Override
  public String toString() {
    return "RolloutStatus{revision="
        + revision
        + ", stableRevision="
        + stableRevision
        + ", stable="
        + stable
        + ", stableUnproven="
        + stableUnproven
        + ", phase="
        + phase
        + ", batch="
        + batch
        + ", batchStartTime="
        + batchStartTime
        + ", batchPassedTime="
        + batchPassedTime
        + ", selectedNodes="
        + selectedNodes
        + ", updatedNodes="
        + updatedNodes
        + ", updated="
        + updated
        + ", failure="
        + failure
        + "}";
  }
}
