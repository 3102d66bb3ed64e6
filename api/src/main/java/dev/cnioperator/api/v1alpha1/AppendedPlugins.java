package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import lombok.Data;

/**
 * Plugin entries another installer (a service mesh's CNI installer, say) appended after the
 * network's own plugins in its file on one node: kept there by the agent, and carried into each new
 * revision it writes.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class AppendedPlugins {

  @JsonPropertyDescription("The network's file on the node that holds them.")
  private String fileName;

  @JsonPropertyDescription(
      "The type of each appended plugin entry, in the order the file runs them.")
  private List<String> types;

  @JsonPropertyDescription("When the agent first saw these types appended (RFC 3339).")
  private String since;
}
