package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** An attachment whose CHECK failed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
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

  public String getPod() {
    return pod;
  }

  public void setPod(String pod) {
    this.pod = pod;
  }

  public FailingAttachment withPod(String pod) {
    this.pod = pod;
    return this;
  }

  public String getNamespace() {
    return namespace;
  }

  public void setNamespace(String namespace) {
    this.namespace = namespace;
  }

  public FailingAttachment withNamespace(String namespace) {
    this.namespace = namespace;
    return this;
  }

  public String getContainerId() {
    return containerId;
  }

  public void setContainerId(String containerId) {
    this.containerId = containerId;
  }

  public FailingAttachment withContainerId(String containerId) {
    this.containerId = containerId;
    return this;
  }

  public String getIfName() {
    return ifName;
  }

  public void setIfName(String ifName) {
    this.ifName = ifName;
  }

  public FailingAttachment withIfName(String ifName) {
    this.ifName = ifName;
    return this;
  }

  public String getError() {
    return error;
  }

  public void setError(String error) {
    this.error = error;
  }

  public FailingAttachment withError(String error) {
    this.error = error;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FailingAttachment other)) {
      return false;
    }
    return Objects.equals(pod, other.pod)
        && Objects.equals(namespace, other.namespace)
        && Objects.equals(containerId, other.containerId)
        && Objects.equals(ifName, other.ifName)
        && Objects.equals(error, other.error);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pod, namespace, containerId, ifName, error);
  }

  @Override
  public String toString() {
    return "FailingAttachment{pod="
        + pod
        + ", namespace="
        + namespace
        + ", containerId="
        + containerId
        + ", ifName="
        + ifName
        + ", error="
        + error
        + "}";
  }
}
