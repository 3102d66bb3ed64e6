package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;
import lombok.Data;

/**
 * Where the rollout of a CniNetwork's newest accepted revision stands; with the CniNodes' specs
 * (which revision each node holds) it is all a restarted operator needs to resume.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
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
}
