package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import lombok.Data;

/**
 * One configuration list a node must hold, rendered by the operator for this node; or, when the
 * node lacks a value the network uses, why it cannot have it ({@code unavailable}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "has(self.unavailable) != (has(self.content) && has(self.sha256))",
    message = "either content and sha256, or unavailable")
@Data
public class NodeNetwork extends KnownFields {

  @JsonPropertyDescription("The CniNetwork this comes from.")
  @Required
  private String name;

  @JsonPropertyDescription(
      "The uid of that CniNetwork. A network deleted and created again under the same name has"
          + " another uid, and its agent starts its history (schedules, cleanup counts, CHECK"
          + " failures already reported) afresh.")
  private String uid;

  @JsonPropertyDescription(
      "File name in the CNI configuration directory. For a network with appendTo, the name its own file would have: nothing is written under it, the entries go into the file of the network appendTo names.")
  @Required
  @Pattern("^[0-9]{2}-[a-zA-Z0-9][a-zA-Z0-9_.\\-]*\\.conflist$")
  private String fileName;

  @JsonPropertyDescription("Lower-case hex sha256 of content.")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  @JsonPropertyDescription(
      "The configuration list, byte for byte, rendered with this node's values.")
  private String content;

  @JsonPropertyDescription(
      "Set instead of content when this node lacks a value the network uses (a pod CIDR, a label,"
          + " an annotation, its slice of spec.nodeSlices): the node does not get the network, whatever it holds of it stays,"
          + " and its agent reports it Failed with this message.")
  private String unavailable;

  @JsonPropertyDescription("The CNI version of the configuration list.")
  private SpecVersion cniVersion;

  @JsonPropertyDescription("CHECK settings, with defaults filled in.")
  private NetworkCheck check;

  @JsonPropertyDescription("Cleanup settings, with defaults filled in; disableGC is in content.")
  private IpamCleanup ipamCleanup;

  @JsonPropertyDescription(
      "The CniNetwork revision this content is rendered from: the sha256 of the network's template (CniNetwork status.rendered, or status.rollout.stable while a rollout holds this node back).")
  @Pattern("^[a-f0-9]{64}$")
  private String revision;

  @JsonPropertyDescription(
      "How the agent proves a new content before the operator counts the node as updated, with defaults filled in.")
  private RolloutProbe probe;

  @JsonPropertyDescription(
      "The CNI name of another product's network this network's plugins are appended to (CniNetwork spec.appendTo); content is then a configuration list named so, whose plugins are the entries to append, and whose cniVersion is the one they were validated for.")
  @Pattern(NetworkNames.PATTERN)
  private String appendTo;

  @JsonPropertyDescription(
      "How the entries of a network with appendTo are held (CniNetwork spec.appendAs): DropIn where the node's runtime loads libcni drop-ins, in place elsewhere; absent for InPlace.")
  private AppendPlacement appendAs;

  @JsonPropertyDescription(
      "The configuration directory the file goes to: Runtime (the container runtime's, the default) or Multus (Multus's own, read for config-less NetworkAttachmentDefinitions).")
  private ConfigDirectory directory;

  @JsonPropertyDescription(
      "Whether the agent publishes the network as a device of its node's ResourceSlice (CniNetwork spec.scheduling.publishDevices); absent when not.")
  private Boolean publishDevice;
}
