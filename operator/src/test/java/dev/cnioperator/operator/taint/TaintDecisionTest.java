package dev.cnioperator.operator.taint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaintDecisionTest {

  private static Pod agent(String name, boolean ready, String startedAt) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withCreationTimestamp("2026-11-29T10:00:00Z")
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus(ready ? "True" : "False")
        .endCondition()
        .addNewContainerStatus()
        .withName("agent")
        .withNewState()
        .withNewRunning()
        .withStartedAt(startedAt)
        .endRunning()
        .endState()
        .endContainerStatus()
        .endStatus()
        .build();
  }

  private static CniNode reported(String agentStart, String podNetworkReady) {
    CniNode n = new CniNode();
    n.setStatus(
        new CniNodeStatus()
            .setAgentStartTime(agentStart)
            .setConditions(
                List.of(
                    new ConditionBuilder()
                        .withType("PodNetworkReady")
                        .withStatus(podNetworkReady)
                        .withReason("ChainNotProven")
                        .withMessage("pod network cbr0: bw is not proven yet")
                        .build())));
    return n;
  }

  @Test
  void comesOffOnlyWhenTheRunningAgentProvedThePodNetwork() {
    TaintDecision d =
        TaintDecision.decide(
            List.of(agent("a", true, "2026-11-29T10:00:05Z")),
            reported("2026-11-29T10:00:06Z", "True"));
    assertThat(d.taint()).isFalse();
    assertThat(d.changes(true)).isTrue();
    assertThat(d.changes(false)).isFalse();
  }

  @Test
  void aReportFromBeforeTheAgentsContainerStartedDoesNotCount() {
    TaintDecision d =
        TaintDecision.decide(
            List.of(agent("a", true, "2026-11-29T10:05:00Z")),
            reported("2026-11-29T10:00:06Z", "True"));
    assertThat(d.taint()).isTrue();
    assertThat(d.reason()).contains("started at 2026-11-29T10:00:06Z, before agent pod a");
    // The agent starts within the second its container does.
    assertThat(
            TaintDecision.decide(
                    List.of(agent("a", true, "2026-11-29T10:05:00Z")),
                    reported("2026-11-29T10:05:00Z", "True"))
                .taint())
        .isFalse();
  }

  @Test
  void staysOnWhileTheAgentIsNotReadyOrTheChainIsNotProven() {
    assertThat(
            TaintDecision.decide(
                    List.of(agent("a", false, "2026-11-29T10:00:05Z")),
                    reported("2026-11-29T10:00:06Z", "True"))
                .reason())
        .isEqualTo("agent pod a is not ready");
    TaintDecision unproven =
        TaintDecision.decide(
            List.of(agent("a", true, "2026-11-29T10:00:05Z")),
            reported("2026-11-29T10:00:06Z", "False"));
    assertThat(unproven.taint()).isTrue();
    assertThat(unproven.reason())
        .isEqualTo(
            "PodNetworkReady is False (ChainNotProven): pod network cbr0: bw is not proven yet");
    assertThat(
            TaintDecision.decide(List.of(agent("a", true, "2026-11-29T10:00:05Z")), null).taint())
        .isTrue();
  }

  @Test
  void aTerminatingAgentTaintsAndANodeWithoutAgentIsLeftAlone() {
    Pod leaving = agent("a", true, "2026-11-29T10:00:05Z");
    leaving.getMetadata().setDeletionTimestamp("2026-11-29T10:10:00Z");
    assertThat(
            TaintDecision.decide(List.of(leaving), reported("2026-11-29T10:00:06Z", "True"))
                .reason())
        .isEqualTo("agent pod a is terminating");
    TaintDecision none = TaintDecision.decide(List.of(), null);
    assertThat(none.taint()).isNull();
    assertThat(none.changes(true)).isFalse();
    assertThat(none.changes(false)).isFalse();
  }
}
