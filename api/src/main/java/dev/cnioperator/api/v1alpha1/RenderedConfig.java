package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;
import lombok.Data;

/**
 * The accepted revision of a CniNetwork: its rendered configuration list and the nodes it goes to.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class RenderedConfig {

  @JsonPropertyDescription("The network name inside content.")
  private String networkName;

  @JsonPropertyDescription(
      "The network this revision's plugins are appended to (spec.appendTo), whose name content then carries; absent for a network of its own.")
  private String appendTo;

  @JsonPropertyDescription("The cniVersion inside content.")
  private SpecVersion cniVersion;

  @JsonPropertyDescription("The node selector of this revision.")
  private LabelSelector nodeSelector;

  @JsonPropertyDescription("The file name on the node, \"<priority>-<networkName>.conflist\".")
  private String fileName;

  @JsonPropertyDescription(
      "The revision's identity, lower-case hex: the sha256 of content, followed when nodeSlices is set by a line \"nodeSlices subnet=<subnet> prefixLength=<n>\", so that an edit of nodeSlices alone is a new revision.")
  @Pattern("^[a-f0-9]{64}$")
  private String sha256;

  @JsonPropertyDescription("The configuration list exactly as written to the node.")
  private String content;

  @JsonPropertyDescription(
      "The plugin binaries content runs, each plugin's type and ipam.type, sorted and once each: what every node that holds it must have.")
  private List<String> pluginBinaries;

  @JsonPropertyDescription("The metadata.generation of the CniNetwork this was rendered from.")
  private Long generation;

  @JsonPropertyDescription(
      "The spec.nodeSlices of this revision: the subnet and slice length its $(node.slice...) values are cut from. A node gets this revision only with a slice of exactly these.")
  private NodeSlices nodeSlices;
}
