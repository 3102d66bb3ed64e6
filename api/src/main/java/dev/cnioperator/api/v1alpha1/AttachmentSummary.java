package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import lombok.Data;

/** Live attachments of one network on one node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class AttachmentSummary {

  @JsonPropertyDescription("Attachments in the runtime's cache for this network.")
  private Integer total;

  @JsonPropertyDescription("Attachments whose last CHECK succeeded.")
  private Integer healthy;

  @JsonPropertyDescription(
      "Attachments the agent could not CHECK (it could not learn their network namespace): neither healthy nor failing; uncheckedReason says why.")
  private Integer unchecked;

  @JsonPropertyDescription(
      "Why some attachments were not checked, and what would let the agent check them.")
  private String uncheckedReason;

  @JsonPropertyDescription(
      "Attachments added with another chain than the network's file holds now (an older revision, or without a plugin another installer chained in since): they keep it until their pod is created again.")
  private Integer olderChain;

  @JsonPropertyDescription(
      "The first attachments on an older chain, by namespace and pod, capped at 10: the pods to restart.")
  @Size(max = 10)
  private List<OlderChainPod> olderChainPods;

  @JsonPropertyDescription("Attachments whose last CHECK failed, capped at 20.")
  @Size(max = 20)
  private List<FailingAttachment> failing;
}
