package dev.cnioperator.api.v1alpha1;

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
    name = "Default",
    jsonPath = PrinterColumns.NODE_DEFAULT,
    type = AdditionalPrinterColumn.Type.STRING,
    priority = 1)
@AdditionalPrinterColumn(
    name = "Age",
    jsonPath = PrinterColumns.AGE,
    type = AdditionalPrinterColumn.Type.DATE)
public class CniNode extends CustomResource<CniNodeSpec, CniNodeStatus> {}
