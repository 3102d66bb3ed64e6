package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/** A CNI plugin binary, downloaded and verified by sha256, for plugins the agent image lacks. */
@Group(CniNetwork.GROUP)
@Version(CniNetwork.VERSION)
@ShortNames("cniplugin")
@Categories("cni")
@AdditionalPrinterColumn(
    name = "Binary",
    jsonPath = ".spec.binaryName",
    type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(
    name = "URL",
    jsonPath = ".spec.url",
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = PrinterColumns.AGE,
    type = AdditionalPrinterColumn.Type.DATE)
public class CniPlugin extends CustomResource<CniPluginSpec, CniPluginStatus> {
  // Overridden only to describe the two fields in the CRD (kubectl explain).
  @Override
  @JsonPropertyDescription("A plugin binary to download onto nodes, verified by its sha256.")
  public CniPluginSpec getSpec() {
    return super.getSpec();
  }

  @Override
  @JsonPropertyDescription("What the operator observed of this CniPlugin.")
  public CniPluginStatus getStatus() {
    return super.getStatus();
  }
}
