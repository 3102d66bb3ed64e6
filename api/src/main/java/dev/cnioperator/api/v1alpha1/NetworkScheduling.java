package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** What the scheduler is told of a network, node by node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class NetworkScheduling extends KnownFields {

  @JsonPropertyDescription(
      "Publishes the network to the scheduler through Dynamic Resource Allocation (resource.k8s.io/v1 with consumable capacity and device taints: Kubernetes 1.36 and later; an agent on an older API server publishes nothing and records a DevicesNotPublished Event on its CniNode): each node's agent puts a device named after this CniNetwork in its node's ResourceSlice of the driver networks.cnioperator.dev while the network is in the node's spec, with the attributes network, networkName, revision, cniVersion, state and proven, and, where host-local hands out the addresses, the capacity addresses (those of the node's range not held by pods that attach without a claim); the device carries a NoSchedule taint (key networks.cnioperator.dev/not-proven, its value why) while the network's current content is not applied and proven there (a probe or apply failed, a rollout rolled it back and the old content is not proven again, the file is Contested or in Conflict). The operator makes the DeviceClass <metadata.name>.networks.cnioperator.dev (extended resource networks.cnioperator.dev/<metadata.name>) and, for a Multus network, a ResourceClaimTemplate beside each NetworkAttachmentDefinition. Needs metadata.name to be a DNS label (at most 63 characters). Opt-in in this release: an operator of an earlier release refuses a network that sets it.")
  private Boolean publishDevices;
}
