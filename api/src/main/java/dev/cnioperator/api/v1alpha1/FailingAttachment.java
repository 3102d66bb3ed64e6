package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import lombok.Data;

/** An attachment whose CHECK failed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Data
public class FailingAttachment {

  @JsonPropertyDescription("Name of the pod (K8S_POD_NAME in CNI_ARGS).")
  private String pod;

  @JsonPropertyDescription("Namespace of the pod (K8S_POD_NAMESPACE).")
  private String namespace;

  @JsonPropertyDescription("The CNI container id.")
  private String containerId;

  @JsonPropertyDescription("Interface name inside the container.")
  private String ifName;

  @JsonPropertyDescription("The CNI error (code and message) CHECK returned.")
  private String error;
}
