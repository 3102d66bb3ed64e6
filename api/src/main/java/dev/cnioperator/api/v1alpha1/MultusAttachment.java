package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.util.List;
import lombok.Data;

/**
 * A secondary network that pods ask for through Multus: the operator keeps a config-less
 * NetworkAttachmentDefinition of the network's name in each chosen namespace, and Multus reads the
 * configuration from the file the agent writes into Multus's own configuration directory on the
 * node the pod runs on.
 */
@ValidationRule(
    value = "has(self.namespaces) || has(self.namespaceSelector)",
    message = "spec.attachment.multus needs namespaces, a namespaceSelector or both",
    reason = "FieldValueRequired")
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class MultusAttachment extends KnownFields {

  @JsonPropertyDescription(
      "Namespaces that get the NetworkAttachmentDefinition, by name. A namespace created later gets it when it appears. (A name that is not a namespace name is reported in the AttachmentDefinitions condition; the API server cannot check list items cheaply enough.)")
  @Size(max = 64)
  private List<String> namespaces;

  @JsonPropertyDescription(
      "Namespaces that get the NetworkAttachmentDefinition, by their labels, in addition to those named in namespaces; a namespace that starts or stops matching gains or loses it.")
  private LabelSelector namespaceSelector;
}
