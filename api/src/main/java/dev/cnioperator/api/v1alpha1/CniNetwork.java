package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A CNI network declared by a cluster admin, rendered by the operator onto the selected nodes. */
@Group(CniNetwork.GROUP)
@Version(CniNetwork.VERSION)
@ShortNames("cninet")
@Categories("cni")
@AdditionalPrinterColumn(
    name = "Network",
    jsonPath = PrinterColumns.NETWORK_NAME,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "CNI",
    jsonPath = PrinterColumns.NETWORK_CNI_VERSION,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Nodes",
    jsonPath = PrinterColumns.NETWORK_NODES,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Rollout",
    jsonPath = PrinterColumns.NETWORK_ROLLOUT,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Updated",
    jsonPath = PrinterColumns.NETWORK_UPDATED,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Ready",
    jsonPath = PrinterColumns.NETWORK_READY,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Degraded",
    jsonPath = PrinterColumns.NETWORK_DEGRADED,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Reason",
    jsonPath = PrinterColumns.NETWORK_REASON,
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = PrinterColumns.AGE,
    type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
    value =
        "!has(self.spec.scheduling) || !has(self.spec.scheduling.publishDevices) || !self.spec.scheduling.publishDevices || (size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'))",
    message =
        "spec.scheduling.publishDevices names each node's device after metadata.name, which must then be a DNS label: at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit",
    reason = "FieldValueInvalid",
    fieldPath = ".spec.scheduling.publishDevices")
public class CniNetwork extends CustomResource<CniNetworkSpec, CniNetworkStatus> {

  public static final String GROUP = "cnioperator.dev";
  public static final String VERSION = "v1alpha1";

  /** The network name the conflist carries: spec.networkName, or metadata.name when unset. */
  public String networkName() {
    String declared = getSpec() == null ? null : getSpec().getNetworkName();
    return declared != null ? declared : getMetadata().getName();
  }

  // Overridden only to describe the two fields in the CRD (kubectl explain).
  @Override
  @JsonPropertyDescription(
      "What a cluster admin declares: one CNI network configuration list and the nodes that get it.")
  public CniNetworkSpec getSpec() {
    return super.getSpec();
  }

  @Override
  @JsonPropertyDescription(
      "What the operator observed: the accepted revision, how many selected nodes hold it, its rollout, and the conditions Accepted, Ready, Degraded and RolledOut.")
  public CniNetworkStatus getStatus() {
    return super.getStatus();
  }
}
