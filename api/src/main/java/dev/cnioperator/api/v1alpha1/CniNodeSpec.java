package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Optional;
import lombok.Data;

/** Exactly what one node must hold, written by the operator from every CniNetwork and CniPlugin. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class CniNodeSpec extends KnownFields {

  @JsonPropertyDescription(
      "The configuration lists this node must hold, sorted by file name; a managed file not listed here is removed.")
  private List<NodeNetwork> networks;

  @JsonPropertyDescription("The plugin binaries this node must have, sorted by name.")
  private List<NodePlugin> plugins;

  /**
   * The entry of the network (CniNetwork) {@code name}, if this spec lists it. A method with a
   * parameter, so neither Jackson nor the CRD generator takes it for a property.
   */
  public Optional<NodeNetwork> network(String name) {
    return networks == null
        ? Optional.empty()
        : networks.stream().filter(n -> name.equals(n.getName())).findFirst();
  }
}
