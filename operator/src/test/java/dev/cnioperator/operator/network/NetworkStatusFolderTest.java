package dev.cnioperator.operator.network;

import static dev.cnioperator.operator.TestNetworks.network;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.AppendedPlugins;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkStatus;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.Rollout;
import dev.cnioperator.api.v1alpha1.RolloutProbe;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.api.v1alpha1.SpecVersion;
import dev.cnioperator.cni.config.ConfigProblem;
import dev.cnioperator.cni.config.ConflistRule;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import dev.cnioperator.operator.placement.Clash;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NetworkStatusFolderTest {
  private static final Instant T0 = Instant.parse("2026-11-21T05:00:00Z");
  private static final Instant T1 = Instant.parse("2026-11-21T05:10:00Z");
  private static final String SHA = "a".repeat(64);

  private final NetworkStatusFolder folder = new NetworkStatusFolder();
  private final CniNetwork network = network("dbnet", "{\"type\":\"bridge\"}");
  private final RenderedConfig rendered =
      new RenderedConfig()
          .setNetworkName("dbnet")
          .setFileName("50-dbnet.conflist")
          .setSha256(SHA)
          .setGeneration(3L);
  private final Rendering accepted = new Rendering.Accepted(rendered);

  private static NodeReport applied(String node, String sha, FailingAttachment... failing) {
    return new NodeReport(
        node,
        new NodeNetworkStatus()
            .setName("dbnet")
            .setState(NetworkState.Applied)
            .setAppliedSha256(sha)
            .setAttachments(new AttachmentSummary().setFailing(List.of(failing))),
        null);
  }

  /** Applied, and the agent's probe of that content ended with {@code result}. */
  private static NodeReport probed(
      String node, String sha, ProbeResult result, String message, FailingAttachment... failing) {
    NodeReport r = applied(node, sha, failing);
    r.report()
        .setProbe(
            new ProbeReport()
                .setSha256(sha)
                .setResult(result)
                .setMessage(message)
                .setTime(T0.toString()));
    return r;
  }

  private static NodeReport proven(String node, String sha, FailingAttachment... failing) {
    return probed(node, sha, ProbeResult.Passed, null, failing);
  }

  /** The fold of a network that declares no nodeSlices and is not a Multus network. */
  private NetworkStatusFolder.Folded fold(
      CniNetwork network,
      Rendering rendering,
      RenderedConfig accepted,
      List<NodeReport> reports,
      Map<String, Clash> clashes,
      RolloutStatus rollout,
      Instant now) {
    return folder.fold(
        network,
        new NetworkStatusFolder.Input(
            rendering, accepted, reports, clashes, rollout, List.of(), Optional.empty()),
        now);
  }

  private static CniNetworkStatus status(NetworkStatusFolder.Folded folded) {
    return folded.status();
  }

  private static Condition condition(CniNetworkStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void readyWhenEverySelectedNodeHoldsTheCurrentSha() {
    CniNetworkStatus s =
        status(
            fold(
                network,
                accepted,
                rendered,
                List.of(proven("n1", SHA), proven("n2", SHA)),
                Map.of(),
                null,
                T0));

    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getMessage())
        .isEqualTo(
            "2/2 nodes hold sha256 aaaaaaaaaaaa, proven by a probe attachment: ADD, CHECK, DEL, no"
                + " failing attachments");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("False");
    assertThat(s.getNodes().getReady()).isEqualTo("2/2");
    assertThat(s.getObservedGeneration()).isEqualTo(3L);
  }

  @Test
  void pluginsAnotherInstallerAppendedAreNamedWithoutDegradingTheNetwork() {
    NodeReport n1 = proven("n1", SHA);
    n1.report()
        .setAppendedPlugins(
            new AppendedPlugins()
                .setFileName("50-dbnet.conflist")
                .setTypes(List.of("istio-cni"))
                .setSince(T0.toString()));
    CniNetworkStatus s =
        status(
            fold(network, accepted, rendered, List.of(n1, proven("n2", SHA)), Map.of(), null, T0));

    Condition appended = condition(s, "PluginsAppended");
    assertThat(appended.getStatus()).isEqualTo("True");
    assertThat(appended.getReason()).isEqualTo("PluginsAppended");
    assertThat(appended.getMessage()).endsWith(": istio-cni on n1");
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("False");

    CniNetworkStatus own =
        status(fold(network, accepted, rendered, List.of(proven("n2", SHA)), Map.of(), null, T0));
    assertThat(condition(own, "PluginsAppended").getStatus()).isEqualTo("False");
    assertThat(condition(own, "PluginsAppended").getReason()).isEqualTo("OwnPluginsOnly");
  }

  @Test
  void readyNamesNoCheckWhereTheAgentRunsNone() {
    List<NodeReport> reports = List.of(proven("n1", SHA));
    rendered.setCniVersion(SpecVersion.V0_3_1);
    assertThat(
            condition(
                    status(fold(network, accepted, rendered, reports, Map.of(), null, T0)), "Ready")
                .getMessage())
        .contains("proven by a probe attachment: ADD, DEL (no CHECK: cniVersion 0.3.1 has none)");

    rendered.setCniVersion(SpecVersion.V1_0_0);
    network.getSpec().setDisableCheck(true);
    assertThat(
            condition(
                    status(fold(network, accepted, rendered, reports, Map.of(), null, T0)), "Ready")
                .getMessage())
        .contains("proven by a probe attachment: ADD, DEL (no CHECK: spec.disableCheck is true)");
  }

  @Test
  void theFoldSaysWhatItsConditionsSayForMetricsAndLogs() {
    List<NodeReport> failed = List.of(probed("n1", SHA, ProbeResult.Failed, "ADD: no"));

    assertThat(fold(network, accepted, rendered, List.of(proven("n1", SHA)), Map.of(), null, T0))
        .extracting(NetworkStatusFolder.Folded::health)
        .isEqualTo(new OperatorMetrics.NetworkHealth(true, true, false));
    assertThat(fold(network, accepted, rendered, failed, Map.of(), null, T0).health())
        .isEqualTo(new OperatorMetrics.NetworkHealth(true, false, true));
  }

  @Test
  void notReadyWhileANodeHoldsAnOlderShaOrHasNotReported() {
    CniNetworkStatus s =
        status(
            fold(
                network,
                accepted,
                rendered,
                List.of(
                    proven("n1", SHA),
                    proven("n2", "b".repeat(64)),
                    new NodeReport("n3", null, null)),
                Map.of(),
                null,
                T0));

    Condition ready = condition(s, "Ready");
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("Applying");
    assertThat(ready.getMessage())
        .isEqualTo("1/3 nodes hold sha256 aaaaaaaaaaaa; waiting for n2, n3");
    assertThat(s.getNodes().getApplied()).isEqualTo(1);
  }

  @Test
  void failingAttachmentsDegradeAndNameThePod() {
    FailingAttachment f =
        new FailingAttachment()
            .setPod("web-1")
            .setNamespace("shop")
            .setIfName("eth0")
            .setError("no such interface");

    CniNetworkStatus s =
        status(
            fold(network, accepted, rendered, List.of(proven("n1", SHA, f)), Map.of(), null, T0));

    assertThat(condition(s, "Degraded").getReason()).isEqualTo("AttachmentsFailing");
    assertThat(condition(s, "Degraded").getMessage())
        .isEqualTo("n1: pod shop/web-1 (eth0): no such interface");
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
    assertThat(s.getNodes().getHealthy()).isZero();
  }

  @Test
  void aFailedApplyIsDegradedAndNotReady() {
    NodeReport failed =
        new NodeReport(
            "n1",
            new NodeNetworkStatus()
                .setName("dbnet")
                .setState(NetworkState.Conflict)
                .setMessage("50-dbnet.conflist exists and is not ours"),
            null);

    CniNetworkStatus s =
        status(fold(network, accepted, rendered, List.of(failed), Map.of(), null, T0));

    assertThat(condition(s, "Ready").getReason()).isEqualTo("ApplyFailed");
    assertThat(condition(s, "Degraded").getMessage())
        .isEqualTo("n1: Conflict: 50-dbnet.conflist exists and is not ours");
  }

  @Test
  void refusedSpecKeepsThePreviousRevisionAndSaysSo() {
    Rendering refused =
        new Rendering.Refused(
            ConditionReason.INVALID_CONFIGURATION,
            List.of(new ConfigProblem("spec.plugins[0].type", ConflistRule.UNSAFE_TYPE, "bad")));

    CniNetworkStatus s =
        status(
            fold(
                network,
                refused,
                rendered.setGeneration(2L),
                List.of(proven("n1", SHA)),
                Map.of(),
                null,
                T0));

    assertThat(condition(s, "Accepted").getReason()).isEqualTo("InvalidConfiguration");
    assertThat(condition(s, "Accepted").getMessage())
        .isEqualTo("spec.plugins[0].type: bad; nodes keep generation 2");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("NotAccepted");
    assertThat(s.getRendered().getGeneration()).isEqualTo(2L);
  }

  /** An appended network has no file: Accepted and status.networkName name the network it joins. */
  @Test
  void anAppendedNetworkIsAcceptedAsPluginsToAppendToItsTarget() {
    CniNetwork shaping = network("shaping", "{\"type\":\"bandwidth\"}");
    shaping.getSpec().setAppendTo("cbr0");
    RenderedConfig appended =
        new RenderedConfig()
            .setNetworkName("cbr0")
            .setAppendTo("cbr0")
            .setFileName("50-cbr0.conflist")
            .setSha256(SHA)
            .setGeneration(3L);

    CniNetworkStatus s =
        status(
            fold(
                shaping,
                new Rendering.Accepted(appended),
                appended,
                List.of(),
                Map.of(),
                null,
                T0));
    CniNetworkStatus refused =
        status(
            fold(
                shaping,
                new Rendering.Refused(
                    ConditionReason.INVALID_CONFIGURATION,
                    List.of(
                        new ConfigProblem(
                            "spec.plugins[0].type", ConflistRule.UNSAFE_TYPE, "bad"))),
                null,
                List.of(),
                Map.of(),
                null,
                T0));

    assertThat(condition(s, "Accepted").getMessage())
        .isEqualTo("rendered plugins to append to network \"cbr0\" (sha256 aaaaaaaaaaaa)");
    assertThat(s.getNetworkName()).isEqualTo("cbr0");
    assertThat(refused.getNetworkName()).isEqualTo("cbr0");
    assertThat(condition(s, "PluginsAppended").getMessage())
        .isEqualTo(
            "this network has no file of its own: its plugins are appended to network cbr0's");
  }

  @Test
  void clashIsAConflictNamingTheHolderAndNodes() {
    CniNetworkStatus s =
        status(
            fold(
                network,
                accepted,
                rendered,
                List.of(),
                Map.of("n1", new Clash("older", "network name \"dbnet\"")),
                null,
                T0));

    assertThat(condition(s, "Accepted").getReason()).isEqualTo("Conflict");
    assertThat(condition(s, "Accepted").getMessage())
        .isEqualTo(
            "network name \"dbnet\" is held by CniNetwork \"older\" on n1; the older one keeps it and this network is not written there");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("NoNodesSelected");
  }

  @Test
  void lastTransitionTimeMovesOnlyWhenTheStatusChanges() {
    List<NodeReport> unreported = List.of(new NodeReport("n1", null, null));
    CniNetworkStatus first =
        status(fold(network, accepted, rendered, unreported, Map.of(), null, T0));
    network.setStatus(first);

    CniNetworkStatus same =
        status(fold(network, accepted, rendered, unreported, Map.of(), null, T1));
    CniNetworkStatus ready =
        status(fold(network, accepted, rendered, List.of(proven("n1", SHA)), Map.of(), null, T1));

    assertThat(same).isEqualTo(first);
    assertThat(condition(ready, "Ready").getLastTransitionTime()).isEqualTo(T1.toString());
    assertThat(condition(ready, "Accepted").getLastTransitionTime()).isEqualTo(T0.toString());
  }

  @Test
  void aNodeWhoseProbeFailsIsNotReadyAndDegradedNamingTheNodeAndTheError() {
    String error = "ADD: failed to set bridge addr: \"cni0\" already has an IP address";
    CniNetworkStatus s =
        status(
            fold(
                network,
                accepted,
                rendered,
                List.of(proven("n1", SHA), probed("n2", SHA, ProbeResult.Failed, error)),
                Map.of(),
                null,
                T0));

    String message =
        "1/2 nodes cannot attach a pod to this network (their agent's probe attachment fails): n2: "
            + error;
    assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
    assertThat(condition(s, "Ready").getReason()).isEqualTo("ProbeFailed");
    assertThat(condition(s, "Ready").getMessage()).isEqualTo(message);
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Degraded").getMessage()).isEqualTo(message);
    assertThat(s.getNodes().getReady()).isEqualTo("1/2");
  }

  @Test
  void aProbeOfAnEarlierContentProvesNothing() {
    NodeReport stale = proven("n1", SHA);
    stale.report().getProbe().setSha256("b".repeat(64));

    CniNetworkStatus s =
        status(fold(network, accepted, rendered, List.of(stale), Map.of(), null, T0));

    assertThat(condition(s, "Ready").getReason()).isEqualTo("Proving");
    assertThat(condition(s, "Ready").getMessage())
        .isEqualTo(
            "1/1 nodes hold sha256 aaaaaaaaaaaa; waiting for the proof (a probe attachment: ADD,"
                + " CHECK, DEL) from n1");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("False");
    assertThat(s.getNodes().getHealthy()).isZero();
  }

  @Test
  void uncheckedAttachmentsAreNeitherHealthyNorFailingAndTheStatusSaysWhy() {
    NodeReport n1 = proven("n1", SHA);
    n1.report()
        .getAttachments()
        .setTotal(3)
        .setHealthy(1)
        .setUnchecked(2)
        .setUncheckedReason("no netns cached and no CRI socket");

    CniNetworkStatus s = status(fold(network, accepted, rendered, List.of(n1), Map.of(), null, T0));

    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getMessage())
        .endsWith(
            "; 2 attachment(s) not checked, neither healthy nor failing (n1: no netns cached and no"
                + " CRI socket)");
    assertThat(condition(s, "Degraded").getStatus()).isEqualTo("False");
    assertThat(s.getNodes().getUncheckedAttachments()).isEqualTo(2);
  }

  @Test
  void withTheProbeAttachmentOffReadySaysWhatItRestsOn() {
    network.getSpec().setRollout(new Rollout().setProbe(new RolloutProbe().setEnabled(false)));

    CniNetworkStatus s =
        status(fold(network, accepted, rendered, List.of(proven("n1", SHA)), Map.of(), null, T0));

    assertThat(condition(s, "Ready").getStatus()).isEqualTo("True");
    assertThat(condition(s, "Ready").getMessage())
        .contains("proven by STATUS and a CHECK of the live attachments only")
        .contains("spec.rollout.probe.enabled is false");
  }
}
