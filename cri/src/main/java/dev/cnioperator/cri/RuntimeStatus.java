package dev.cnioperator.cri;

import java.util.List;
import java.util.Map;

/**
 * The runtime's answer to CRI {@code Status}: whether it is ready and whether its pod network is
 * ready. containerd reports {@code NetworkReady=false} with reason {@code NetworkPluginNotReady}
 * while it finds no valid CNI configuration in its {@code conf_dir}.
 *
 * @param info the verbose answer's free-form map, key to JSON text in the runtime's own shape
 *     (containerd puts the CNI configuration it loaded under {@code cniconfig} and the outcome of
 *     its last load under {@code lastCNILoadStatus}); empty when the runtime gives none
 */
public record RuntimeStatus(List<RuntimeCondition> conditions, Map<String, String> info) {
  public RuntimeStatus {
    conditions = List.copyOf(conditions);
    info = Map.copyOf(info);
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
