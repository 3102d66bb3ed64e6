package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** Exactly what one node must hold, written by the operator from every CniNetwork and CniPlugin. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CniNodeSpec {

  @JsonPropertyDescription(
      "The configuration lists this node must hold, sorted by file name; a managed file not listed here is removed.")
  private List<NodeNetwork> networks;

  @JsonPropertyDescription("The plugin binaries this node must have, sorted by name.")
  private List<NodePlugin> plugins;

  public List<NodeNetwork> getNetworks() {
    return networks;
  }

  public void setNetworks(List<NodeNetwork> networks) {
    this.networks = networks;
  }

  public CniNodeSpec withNetworks(List<NodeNetwork> networks) {
    this.networks = networks;
    return this;
  }

  public List<NodePlugin> getPlugins() {
    return plugins;
  }

  public void setPlugins(List<NodePlugin> plugins) {
    this.plugins = plugins;
  }

  public CniNodeSpec withPlugins(List<NodePlugin> plugins) {
    this.plugins = plugins;
    return this;
  }

  /**
   * The entry of the network (CniNetwork) {@code name}, if this spec lists it. A method with a
   * parameter, so neither Jackson nor the CRD generator takes it for a property.
   */
  public Optional<NodeNetwork> network(String name) {
    return networks == null
        ? Optional.empty()
        : networks.stream().filter(n -> name.equals(n.getName())).findFirst();
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CniNodeSpec other)) {
      return false;
    }
    return Objects.equals(networks, other.networks) && Objects.equals(plugins, other.plugins);
  }

  @Override
  public int hashCode() {
    return Objects.hash(networks, plugins);
  }

  @Override
  public String toString() {
    return "CniNodeSpec{networks=" + networks + ", plugins=" + plugins + "}";
  }
}
