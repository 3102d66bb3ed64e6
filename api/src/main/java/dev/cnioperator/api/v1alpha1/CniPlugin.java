package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A CNI plugin binary, downloaded and verified by sha256, for plugins the agent image lacks.
 *
 * <p>It has no status: the API server checks every field against the schema, the operator only
 * reads CniPlugins to name them in CniNode specs, and what becomes of a download on a node is
 * reported in that node's CniNode status (and the message of the network that needs it).
 */
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
// No status property in the CRD either (Void alone still leaves an empty "status" object there).
@JsonIgnoreProperties("status")
public class CniPlugin extends CustomResource<CniPluginSpec, Void> {
  // Overridden only to describe the field in the CRD (kubectl explain).
  @Override
  @JsonPropertyDescription("A plugin binary to download onto nodes, verified by its sha256.")
  public CniPluginSpec getSpec() {
    return super.getSpec();
  }
}
