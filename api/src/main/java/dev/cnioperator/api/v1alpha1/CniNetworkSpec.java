package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;
import lombok.Data;

/** What a cluster admin declares: one CNI network configuration list and the nodes that get it. */
@ValidationRule(
    value = "!has(self.cniVersions) || self.cniVersions.exists(v, v == self.cniVersion)",
    message = "spec.cniVersions must include spec.cniVersion",
    reason = "FieldValueInvalid",
    fieldPath = ".cniVersions")
@ValidationRule(
    value =
        "!has(self.attachment) || !has(self.attachment.multus) || !has(self.networkName) || self.networkName.matches('"
            + NetworkNames.DNS_SUBDOMAIN
            + "')",
    message =
        "spec.networkName of a Multus network names its NetworkAttachmentDefinitions, so it must be a DNS subdomain: lower-case letters, digits, '-' and '.'",
    reason = "FieldValueInvalid",
    fieldPath = ".networkName")
@ValidationRule(
    value = "!has(self.appendTo) || (!has(self.attachment) && !has(self.networkName))",
    message =
        "spec.appendTo appends plugins to another product's network in the runtime's directory: it cannot be combined with spec.attachment or spec.networkName",
    reason = "FieldValueInvalid",
    fieldPath = ".appendTo")
@ValidationRule(
    value = "!has(self.appendAs) || has(self.appendTo)",
    message = "spec.appendAs says how spec.appendTo's entries are held: it needs spec.appendTo",
    reason = "FieldValueInvalid",
    fieldPath = ".appendAs")
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class CniNetworkSpec extends KnownFields {

  @JsonPropertyDescription(
      "The CNI network name written as the conflist's \"name\"; defaults to metadata.name. It must start with a letter or digit, followed by letters, digits, '_', '.' or '-' (CNI spec, section 1).")
  @Pattern(NetworkNames.PATTERN)
  @Size(min = 1, max = NetworkNames.MAX_LENGTH)
  private String networkName;

  @JsonPropertyDescription(
      "Declares spec.plugins as entries to append to another product's network on the selected nodes (flannel's cbr0, Calico's k8s-pod-network), named by its CNI name, never by file: the agent finds that network's file in the runtime's directory as libcni does (the first .conflist in byte order whose name matches, then .conf and .json), appends one entry per plugin after its chain, puts them back within a second when the other product rewrites its file, and takes them out when this network goes. No file of its own is written: spec.priority and spec.disableGC do not apply. A target file that is not valid JSON, or any configuration file before it that is not, is never edited: the agent waits and says why.")
  @Pattern(NetworkNames.PATTERN)
  @Size(min = 1, max = NetworkNames.MAX_LENGTH)
  private String appendTo;

  @JsonPropertyDescription(
      "How spec.appendTo's entries are held on a node. InPlace (the default): appended to the plugins of the other product's file, and put back when it rewrites the file without them. DropIn: written as libcni drop-in files, <conf dir>/<appendTo>/<file>.<n>.conf, which the runtime appends to that network's plugins, so the other product's file is never touched and its rewrites cost nothing; used where the node's runtime loads drop-ins (containerd 2.1 and later) and the target does not set loadOnlyInlinedPlugins, in place elsewhere; the network's message in the CniNode status says which (\"as drop-ins\" or \"appended ... in <file>\", with why when in place). Opt-in in this release: an operator of an earlier release refuses a network that sets it, so a rollback leaves every node as it is.")
  private AppendPlacement appendAs;

  @JsonPropertyDescription(
      "The CNI specification version of the rendered configuration list and of every plugin in it.")
  @Default(CniNetworkDefaults.CNI_VERSION_TEXT)
  private SpecVersion cniVersion;

  @JsonPropertyDescription(
      "Every CNI version this configuration list supports; must include cniVersion. A runtime selects the highest version of cniVersion and cniVersions it speaks (CNI 1.1.0 version selection), one that reads cniVersion alone (containerd before 2.0) uses cniVersion: cniVersion 1.0.0 with cniVersions [1.0.0, 1.1.0] serves both.")
  @Size(max = 5)
  private List<SpecVersion> cniVersions;

  @JsonPropertyDescription(
      "When true, the node agent never runs CNI CHECK on this network's attachments (for plugin combinations known to report spurious errors).")
  private Boolean disableCheck;

  @JsonPropertyDescription(
      "Written into the conflist as CNI 1.1.0 disableGC: a container runtime that sends GC (CRI-O) skips this network. The agent never sends GC; it cleans up stale attachments one by one with DEL.")
  private Boolean disableGC;

  @JsonPropertyDescription(
      "Orders this network among the node's configuration files: the file is named \"<priority, two digits>-<networkName>.conflist\", and the runtime's default network is the file that sorts first.")
  @Min(0)
  @Max(99)
  @Default("" + CniNetworkDefaults.PRIORITY)
  private Integer priority;

  @JsonPropertyDescription(
      "Selects the Nodes, by their labels, that get this network. Empty or absent selects every node.")
  private LabelSelector nodeSelector;

  @JsonPropertyDescription(
      "The chain of plugin configuration objects, in order. Each is free-form and passed through to the plugin unchanged; 'type' is required and names the plugin binary. The keys runtimeConfig, args and any key starting with cni.dev/ are reserved for the runtime and refused. Per-node values: a string that is exactly \"$(node.X)\" is replaced, as a whole JSON value, by that value of each node the network lands on: node.name, node.podCIDR, node.podCIDR.ipv4, node.podCIDR.ipv6, node.podCIDRs (a list), node.hostLocalRanges (host-local's ranges, one range set per pod CIDR), node.internalIP, node.internalIPs (a list), node.labels[KEY], node.annotations[KEY], and with spec.nodeSlices the node's slice: node.slice (a CIDR), node.slice.rangeStart and node.slice.rangeEnd (host-local's range of it). A node lacking the value does not get the network. Write $$( for a literal $(.")
  @Required
  @Size(min = 1, max = 32)
  @SchemaFrom(type = PluginConfigSchema[].class)
  private List<ObjectNode> plugins;

  @JsonPropertyDescription("How the node agent runs CNI CHECK on this network's live attachments.")
  @Default("{}")
  private NetworkCheck check;

  @JsonPropertyDescription(
      "How the node agent releases IP reservations held by attachments whose pod is gone.")
  @Default("{}")
  private IpamCleanup ipamCleanup;

  @JsonPropertyDescription(
      "How a changed revision goes out to the nodes that hold the network: in batches, each node proving it with a probe before the next batch, a failure rolling back (or pausing). A new network, held by no node yet, goes to every selected node at once.")
  @Default("{}")
  private Rollout rollout;

  @JsonPropertyDescription(
      "How pods attach to this network. Absent: through the container runtime, whose first configuration file is the node's default (pod) network. attachment.multus: as a Multus secondary network.")
  private NetworkAttachment attachment;

  @JsonPropertyDescription(
      "Cuts one subnet shared by the nodes into a disjoint slice per node, for a node-local IPAM (host-local) on one L2 segment: each node's slice is the per-node value $(node.slice), and $(node.slice.rangeStart) and $(node.slice.rangeEnd) are the first and last addresses host-local may hand out of it (the subnet's network address and IPv4 broadcast address left out). No lock is taken when a pod starts: each node's host-local allocates from its own slice. A node without a slice does not get the network and says why: waiting for one (for a moment, while the operator assigns it), or \"no free /<prefixLength> slice left in <subnet>: all <N> are held by other nodes\", also in the Ready condition, until a node leaves or the subnet grows.")
  private NodeSlices nodeSlices;

  @JsonPropertyDescription(
      "What the scheduler is told of this network, node by node (scheduling.publishDevices).")
  private NetworkScheduling scheduling;

  /** Whether this network's plugins are appended to another product's network. */
  @JsonIgnore
  public boolean isAppended() {
    return appendTo != null;
  }

  /** Whether the network is published to the scheduler as a device on each node. */
  @JsonIgnore
  public boolean publishesDevices() {
    return scheduling != null && Boolean.TRUE.equals(scheduling.getPublishDevices());
  }

  /** Whether this is a Multus secondary network. */
  @JsonIgnore
  public boolean isMultus() {
    return attachment != null && attachment.getMultus() != null;
  }
}
