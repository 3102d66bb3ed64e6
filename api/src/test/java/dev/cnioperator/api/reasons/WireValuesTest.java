package dev.cnioperator.api.reasons;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The reasons and types as users, alerts and docs see them: renaming a constant must not change
 * one, and no two constants of a kind may share one.
 */
class WireValuesTest {

  @Test
  void conditionTypesAreTheOnesInTheDocs() {
    assertThat(Arrays.stream(ConditionType.values()).map(ConditionType::wire))
        .containsExactly(
            "Accepted",
            "Ready",
            "Degraded",
            "RolledOut",
            "AttachmentDefinitions",
            "PluginsAppended",
            "PodNetworkReady");
  }

  @Test
  void conditionReasonsAreTheOnesInTheDocsEachOnce() {
    assertThat(Arrays.stream(ConditionReason.values()).map(ConditionReason::wire))
        .containsExactlyInAnyOrder(
            "Accepted",
            "InvalidConfiguration",
            "InvalidNodeSelector",
            "InvalidNodeSlices",
            "UnknownFields",
            "Conflict",
            "Ready",
            "NotAccepted",
            "NoNodesSelected",
            "Applying",
            "Proving",
            "WaitingForNodeValues",
            "ApplyFailed",
            "ProbeFailed",
            "AttachmentsFailing",
            "AttachmentDefinitionsMissing",
            "AsExpected",
            "RolledOut",
            "Progressing",
            "Paused",
            "RolledBack",
            "NoReport",
            "PluginsAppended",
            "OwnPluginsOnly",
            "Created",
            "InvalidNamespaces",
            "Failed",
            "NotInstalled",
            "AllNetworksApplied",
            "NetworksNotApplied",
            "RuntimeUnreachable",
            "PodNetworkProven",
            "NoPodNetwork",
            "ChainNotProven",
            "StaleCopy");
  }

  @Test
  void eventReasonsAreTheOnesInTheDocs() {
    assertThat(Arrays.stream(EventReason.values()).map(EventReason::wire))
        .containsExactly(
            "RemovalTimedOut",
            "CniCheckFailed",
            "UnparsableMultusConfig",
            "FileContested",
            "DevicesNotPublished",
            "NetworkUnschedulable",
            "PodNetworkTainted",
            "PodNetworkUntainted");
  }

  @Test
  void aReasonReadsAsItsWireValueAndMatchesOnlyIt() {
    assertThat(ConditionReason.PROBE_FAILED).hasToString("ProbeFailed");
    assertThat(ConditionReason.PROBE_FAILED.is("ProbeFailed")).isTrue();
    assertThat(ConditionReason.PROBE_FAILED.is("PROBE_FAILED")).isFalse();
    assertThat(ConditionReason.PROBE_FAILED.is(null)).isFalse();
    assertThat(ConditionType.ROLLED_OUT.is("RolledOut")).isTrue();
    assertThat(EventReason.CNI_CHECK_FAILED).hasToString("CniCheckFailed");
  }
}
