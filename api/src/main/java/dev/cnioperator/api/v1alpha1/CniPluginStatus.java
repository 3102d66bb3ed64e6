package dev.cnioperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;

/** What the operator observed of a CniPlugin. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CniPluginStatus {

  @JsonPropertyDescription("The metadata.generation this status describes.")
  private Long observedGeneration;

  @JsonPropertyDescription("Accepted, when the spec is valid.")
  private List<Condition> conditions;

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public CniPluginStatus withObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
    return this;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public CniPluginStatus withConditions(List<Condition> conditions) {
    this.conditions = conditions;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CniPluginStatus other)) {
      return false;
    }
    return Objects.equals(observedGeneration, other.observedGeneration)
        && Objects.equals(conditions, other.conditions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(observedGeneration, conditions);
  }

  @Override
  public String toString() {
    return "CniPluginStatus{observedGeneration="
        + observedGeneration
        + ", conditions="
        + conditions
        + "}";
  }
}
