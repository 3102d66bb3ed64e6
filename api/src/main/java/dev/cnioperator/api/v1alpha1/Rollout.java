package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import lombok.Data;

/** How a changed revision of a network goes out to the nodes that already hold the network. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class Rollout extends KnownFields {

  /** A count of nodes ("3") or a percentage of the selected nodes ("25%"), rounded up. */
  public static final String MAX_NODES_PATTERN = "^([1-9][0-9]{0,5}|([1-9][0-9]?|100)%)$";

  @JsonPropertyDescription(
      "How many nodes may hold the new revision without having proven it yet, after the canary batch: a count (\"3\") or a percentage of the selected nodes (\"25%\", rounded up, at least one node).")
  @Pattern(MAX_NODES_PATTERN)
  @Default(CniNetworkDefaults.ROLLOUT_MAX_NODES)
  private String maxNodes;

  @JsonPropertyDescription(
      "How many nodes take a new revision first, alone, before any batch of maxNodes; 0 starts with a batch of maxNodes.")
  @Min(0)
  @Max(1000)
  @Default("" + CniNetworkDefaults.ROLLOUT_CANARY_NODES)
  private Integer canaryNodes;

  @JsonPropertyDescription(
      "When a node fails to prove the new revision: Rollback gives the nodes that took it the stable revision back and stops; Pause leaves them as they are and admits no further node until the failure clears or the spec changes.")
  @Default(CniNetworkDefaults.ROLLOUT_ON_FAILURE_TEXT)
  private RolloutFailurePolicy onFailure;

  @JsonPropertyDescription(
      "Seconds to wait after every node of a batch has proven the revision before the next batch starts.")
  @Min(0)
  @Max(86400)
  @Default("" + CniNetworkDefaults.ROLLOUT_PAUSE_SECONDS)
  private Integer pauseSeconds;

  @JsonPropertyDescription(
      "Seconds the nodes of a batch have to prove the new revision. A node whose agent has not reported on it by then pauses the rollout, naming the node (a silent agent is no proof that the revision is bad, so nothing is rolled back); its report resumes the rollout. 0: wait without limit.")
  @Min(0)
  @Max(86400)
  @Default("" + CniNetworkDefaults.ROLLOUT_PROGRESS_DEADLINE_SECONDS)
  private Integer progressDeadlineSeconds;

  @JsonPropertyDescription("How a node proves a new revision.")
  @Default("{}")
  private RolloutProbe probe;
}
