package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What a node's agent reports of the node: each network's state, attachments, IPAM and plugins. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CniNodeStatus {

  @JsonPropertyDescription("Per managed network, what the agent did and saw.")
  private List<NodeNetworkStatus> networks;

  @JsonPropertyDescription("Plugin binaries present on the node.")
  private List<InstalledPlugin> plugins;

  @JsonPropertyDescription(
      "Name of the network whose file sorts first in the configuration directory, which runtimes use by default (may be one the agent does not manage).")
  private String defaultNetwork;

  @JsonPropertyDescription(
      "What the container runtime says about the pod network (CRI Status NetworkReady); only when the agent runs with --cri-socket.")
  private RuntimeNetwork runtime;

  @JsonPropertyDescription("Totals over networks, for kubectl get.")
  private NodeSummary summary;

  @JsonPropertyDescription("The CniNode metadata.generation the agent last acted on.")
  private Long observedGeneration;

  @JsonPropertyDescription(
      "Node-level conditions, such as Ready (every network applied) and SourceOfTruthAvailable.")
  private List<Condition> conditions;

  @JsonPropertyDescription(
      "Files in Multus's configuration directory that are not the agent's and do not parse: Multus stops at the first such file, so every config-less NetworkAttachmentDefinition fails on this node until it is fixed or removed.")
  private List<UnparsableFile> unparsableFiles;

  public List<NodeNetworkStatus> getNetworks() {
    return networks;
  }

  public void setNetworks(List<NodeNetworkStatus> networks) {
    this.networks = networks;
  }

  public CniNodeStatus withNetworks(List<NodeNetworkStatus> networks) {
    this.networks = networks;
    return this;
  }

  public List<InstalledPlugin> getPlugins() {
    return plugins;
  }

  public void setPlugins(List<InstalledPlugin> plugins) {
    this.plugins = plugins;
  }

  public CniNodeStatus withPlugins(List<InstalledPlugin> plugins) {
    this.plugins = plugins;
    return this;
  }

  public String getDefaultNetwork() {
    return defaultNetwork;
  }

  public void setDefaultNetwork(String defaultNetwork) {
    this.defaultNetwork = defaultNetwork;
  }

  public CniNodeStatus withDefaultNetwork(String defaultNetwork) {
    this.defaultNetwork = defaultNetwork;
    return this;
  }

  public RuntimeNetwork getRuntime() {
    return runtime;
  }

  public void setRuntime(RuntimeNetwork runtime) {
    this.runtime = runtime;
  }

  public CniNodeStatus withRuntime(RuntimeNetwork runtime) {
    this.runtime = runtime;
    return this;
  }

  public NodeSummary getSummary() {
    return summary;
  }

  public void setSummary(NodeSummary summary) {
    this.summary = summary;
  }

  public CniNodeStatus withSummary(NodeSummary summary) {
    this.summary = summary;
    return this;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public CniNodeStatus withObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
    return this;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public CniNodeStatus withConditions(List<Condition> conditions) {
    this.conditions = conditions;
    return this;
  }

  /**
   * The agent's report on the network (CniNetwork) {@code name}, if it reports one. A method with a
   * parameter, so neither Jackson nor the CRD generator takes it for a property.
   */
  public Optional<NodeNetworkStatus> network(String name) {
    return networks == null
        ? Optional.empty()
        : networks.stream().filter(n -> name.equals(n.getName())).findFirst();
  }

  public List<UnparsableFile> getUnparsableFiles() {
    return unparsableFiles;
  }

  public void setUnparsableFiles(List<UnparsableFile> unparsableFiles) {
    this.unparsableFiles = unparsableFiles;
  }

  public CniNodeStatus withUnparsableFiles(List<UnparsableFile> unparsableFiles) {
    this.unparsableFiles = unparsableFiles;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CniNodeStatus other)) {
      return false;
    }
    return Objects.equals(networks, other.networks)
        && Objects.equals(plugins, other.plugins)
        && Objects.equals(defaultNetwork, other.defaultNetwork)
        && Objects.equals(runtime, other.runtime)
        && Objects.equals(summary, other.summary)
        && Objects.equals(observedGeneration, other.observedGeneration)
        && Objects.equals(conditions, other.conditions)
        && Objects.equals(unparsableFiles, other.unparsableFiles);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        networks,
        plugins,
        defaultNetwork,
        runtime,
        summary,
        observedGeneration,
        conditions,
        unparsableFiles);
  }

  @Override
  public String toString() {
    return "CniNodeStatus{networks="
        + networks
        + ", plugins="
        + plugins
        + ", defaultNetwork="
        + defaultNetwork
        + ", runtime="
        + runtime
        + ", summary="
        + summary
        + ", observedGeneration="
        + observedGeneration
        + ", conditions="
        + conditions
        + ", unparsableFiles="
        + unparsableFiles
        + "}";
  }
}
