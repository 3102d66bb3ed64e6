package dev.cnioperator.cri;

import java.util.List;

/**
 * The runtime's answer to CRI {@code Status}: whether it is ready and whether its pod network is
 * ready. containerd reports {@code NetworkReady=false} with reason {@code NetworkPluginNotReady}
 * while it finds no valid CNI configuration in its {@code conf_dir}.
 */
public record RuntimeStatus(List<RuntimeCondition> conditions) {
  public RuntimeStatus {
    conditions = List.copyOf(conditions);
  }

  public RuntimeCondition runtimeReady() {
    return condition(RuntimeCondition.RUNTIME_READY);
  }

  public RuntimeCondition networkReady() {
    return condition(RuntimeCondition.NETWORK_READY);
  }

  /** The condition of that type, or a not-reported stand-in whose status is false. */
  public RuntimeCondition condition(String type) {
    return conditions.stream()
        .filter(c -> c.type().equals(type))
        .findFirst()
        .orElseGet(() -> RuntimeCondition.notReported(type));
  }
}
