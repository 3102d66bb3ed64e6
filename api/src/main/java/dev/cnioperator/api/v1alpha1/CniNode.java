package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The CNI state of one Node (same name, owned by it): the operator writes what the node must hold
 * (spec), the node's agent reports what it holds (status).
 */
@Group(CniNetwork.GROUP)
@Version(CniNetwork.VERSION)
@ShortNames("cninode")
@Categories("cni")
@AdditionalPrinterColumn(
    name = "Applied",
    jsonPath = PrinterColumns.NODE_APPLIED,
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "Failing",
    jsonPath = PrinterColumns.NODE_FAILING,
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Stale",
    jsonPath = PrinterColumns.NODE_STALE,
    type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(
    name = "Unchecked",
    jsonPath = PrinterColumns.NODE_UNCHECKED,
    type = AdditionalPrinterColumn.Type.INTEGER,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Default",
    jsonPath = PrinterColumns.NODE_DEFAULT,
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "PodNetworkReady",
    jsonPath = PrinterColumns.NODE_POD_NETWORK_READY,
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = PrinterColumns.AGE,
    type = AdditionalPrinterColumn.Type.DATE)
public class CniNode extends CustomResource<CniNodeSpec, CniNodeStatus> {
  // Overridden only to describe the two fields in the CRD (kubectl explain).
  @Override
  @JsonPropertyDescription(
      "Exactly what this node must hold, written by the operator: configuration lists and plugin binaries.")
  public CniNodeSpec getSpec() {
    return super.getSpec();
  }

  @Override
  @JsonPropertyDescription(
      "What this node's agent reports: each network's state, attachments and IPAM reservations, and the plugins present.")
  public CniNodeStatus getStatus() {
    return super.getStatus();
  }
}
