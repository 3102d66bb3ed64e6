package dev.cnioperator.operator.taint;

import dev.cnioperator.api.reasons.ConditionType;
import dev.cnioperator.api.v1alpha1.CniNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Whether a node should carry the pod network taint: it comes off only when the node's agent is
 * ready and its own report, written since it started, says the pod network with every chain
 * declared onto it is proven (CniNode PodNetworkReady). Anything less keeps it on: after a node or
 * agent restart, a report left by the agent before is not taken for the state of the node now.
 *
 * @param taint whether the node should carry it; null when the operator should leave it as it is
 * @param reason why, for the Event and the log
 */
public record TaintDecision(Boolean taint, String reason) {

  /** The feature turned off: the taint comes off every node. */
  public static final TaintDecision TURNED_OFF =
      new TaintDecision(
          false, "the pod network taint is turned off (the chart's podNetworkTaint.enabled=false)");

  static TaintDecision on(String reason) {
    return new TaintDecision(true, reason);
  }

  /**
   * @param agentPods the agent pods bound to the node (normally one; two while one replaces
   *     another)
   * @param cniNode the node's CniNode, null if there is none
   */
  public static TaintDecision decide(List<Pod> agentPods, CniNode cniNode) {
    if (agentPods.isEmpty()) {
      // The agent does not run here (its DaemonSet does not select the node), or its pod is
      // between two incarnations, which its deletion already tainted.
      return new TaintDecision(null, "no agent pod is bound to the node");
    }
    Optional<Pod> live =
        agentPods.stream()
            .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
            .max(Comparator.comparing(p -> p.getMetadata().getCreationTimestamp()));
    if (live.isEmpty()) {
      return on("agent pod " + agentPods.get(0).getMetadata().getName() + " is terminating");
    }
    Pod pod = live.get();
    String name = pod.getMetadata().getName();
    if (!ready(pod)) {
      return on("agent pod " + name + " is not ready");
    }
    Optional<Instant> started = containerStart(pod);
    if (started.isEmpty()) {
      return on("agent pod " + name + " has no running container");
    }
    if (cniNode == null || cniNode.getStatus() == null) {
      return on("the node's CniNode has no report of its agent yet");
    }
    Optional<Instant> reportedStart = parse(cniNode.getStatus().getAgentStartTime());
    if (reportedStart.isEmpty() || reportedStart.get().isBefore(started.get())) {
      return on(
          "the CniNode's report is from an agent that started at "
              + cniNode.getStatus().getAgentStartTime()
              + ", before agent pod "
              + name
              + "'s container ("
              + started.get()
              + "): waiting for the running agent's first report");
    }
    Optional<Condition> podNetwork =
        cniNode.getStatus().getConditions() == null
            ? Optional.empty()
            : cniNode.getStatus().getConditions().stream()
                .filter(c -> ConditionType.POD_NETWORK_READY.is(c.getType()))
                .findFirst();
    if (podNetwork.isEmpty()) {
      return on("the CniNode reports no " + ConditionType.POD_NETWORK_READY + " condition");
    }
    if (!"True".equals(podNetwork.get().getStatus())) {
      return on(
          ConditionType.POD_NETWORK_READY
              + " is "
              + podNetwork.get().getStatus()
              + " ("
              + podNetwork.get().getReason()
              + "): "
              + podNetwork.get().getMessage());
    }
    return new TaintDecision(false, podNetwork.get().getMessage());
  }

  private static boolean ready(Pod pod) {
    List<PodCondition> conditions =
        pod.getStatus() == null || pod.getStatus().getConditions() == null
            ? List.of()
            : pod.getStatus().getConditions();
    return conditions.stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** When the pod's latest container started, as its runtime says (to the second). */
  private static Optional<Instant> containerStart(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getContainerStatuses().stream()
        .map(ContainerStatus::getState)
        .filter(s -> s != null && s.getRunning() != null)
        .map(s -> parse(s.getRunning().getStartedAt()))
        .flatMap(Optional::stream)
        .max(Comparator.naturalOrder());
  }

  private static Optional<Instant> parse(String time) {
    if (time == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(time));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  /** Whether this decision changes a node that carries the taint ({@code tainted}) or not. */
  public boolean changes(boolean tainted) {
    return taint != null && !Objects.equals(taint, tainted);
  }
}
