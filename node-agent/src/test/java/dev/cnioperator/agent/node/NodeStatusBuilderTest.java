package dev.cnioperator.agent.node;

import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Runtime;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.cnioperator.agent.conflist.Appended;
import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.network.NetworkHealth;
import dev.cnioperator.agent.plugin.BinaryAction.Owner;
import dev.cnioperator.agent.plugin.PluginOutcome;
import dev.cnioperator.api.v1alpha1.AppendedPlugins;
import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RuntimeDefaultFile;
import dev.cnioperator.api.v1alpha1.RuntimeNetwork;
import dev.cnioperator.api.v1alpha1.UnparsableFile;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class NodeStatusBuilderTest {
  private static final NodeSync.Result PASS =
      new NodeSync.Result(
          List.of(
              new NetworkOutcome(
                  "b",
                  "60-b.conflist",
                  NetworkState.Applied,
                  "bb",
                  "",
                  false,
                  Runtime,
                  null,
                  "bb",
                  null),
              new NetworkOutcome(
                  "a",
                  "50-a.conflist",
                  NetworkState.Conflict,
                  null,
                  "in the way",
                  false,
                  Runtime,
                  null,
                  null,
                  null)),
          List.of(
              new PluginOutcome("host-local", "22", Owner.external, List.of("1.0.0"), null),
              new PluginOutcome("bridge", "11", Owner.agent, List.of("1.0.0"), null),
              new PluginOutcome("macvlan", null, null, List.of(), "missing")),
          List.of("old"),
          "a",
          List.of());

  /** One network, b, applied. */
  private static final NodeSync.Result APPLIED =
      new NodeSync.Result(
          List.of(
              new NetworkOutcome(
                  "b",
                  "60-b.conflist",
                  NetworkState.Applied,
                  "bb",
                  "",
                  false,
                  Runtime,
                  null,
                  "bb",
                  null)),
          List.of(),
          List.of(),
          "b",
          List.of());

  private static NodeStatusBuilder at(String instant) {
    return new NodeStatusBuilder(Clock.fixed(Instant.parse(instant), ZoneOffset.UTC));
  }

  @Test
  void sameInputsGiveAnEqualStatusSoNothingIsWrittenTwice() {
    Health health = new Health();
    CniNodeStatus first = at("2026-01-01T00:00:00Z").build(PASS, health, null, 3L);
    CniNodeStatus second = at("2026-01-01T00:05:00Z").build(PASS, health, first, 3L);
    assertThat(second).isEqualTo(first);
  }

  @Test
  void eachConditionSaysTheGenerationItDescribesAndMovesItsTimeOnlyWithItsStatus() {
    Health health = new Health();
    CniNodeStatus first = at("2026-01-01T00:00:00Z").build(PASS, health, null, 3L);
    CniNodeStatus next = at("2026-01-01T00:05:00Z").build(APPLIED, health, first, 4L);
    assertThat(first.getConditions()).extracting("observedGeneration").containsOnly(3L);
    assertThat(next.getConditions()).extracting("observedGeneration").containsOnly(4L);
    assertThat(ready(first).getStatus()).isEqualTo("False");
    assertThat(ready(next).getStatus()).isEqualTo("True");
    assertThat(ready(next).getLastTransitionTime()).isEqualTo("2026-01-01T00:05:00Z");
  }

  @Test
  void appendedPluginsAreReportedSinceTheyWereFirstSeen() throws Exception {
    String own = "{\"cniVersion\":\"1.0.0\",\"name\":\"b\",\"plugins\":[{\"type\":\"bridge\"}]}";
    Appended istio =
        Appended.after(own, own.replace("}]}", "},{\"type\":\"istio-cni\"}]}").getBytes())
            .orElseThrow();
    NodeSync.Result chained =
        new NodeSync.Result(
            List.of(
                new NetworkOutcome(
                    "b",
                    "60-b.conflist",
                    NetworkState.Applied,
                    "bb",
                    "",
                    false,
                    Runtime,
                    istio,
                    "cc",
                    null)),
            List.of(),
            List.of(),
            "b",
            List.of());
    Health health = new Health();
    CniNodeStatus first = at("2026-01-01T00:00:00Z").build(chained, health, null, 3L);
    CniNodeStatus later = at("2026-01-01T00:05:00Z").build(chained, health, first, 3L);

    AppendedPlugins a = later.network("b").orElseThrow().getAppendedPlugins();
    assertThat(a.getTypes()).containsExactly("istio-cni");
    assertThat(a.getFileName()).isEqualTo("60-b.conflist");
    assertThat(a.getSince()).isEqualTo("2026-01-01T00:00:00Z");
    assertThat(at("2026-01-01T00:09:00Z").build(PASS, health, later, 3L).network("b").orElseThrow())
        .extracting(n -> n.getAppendedPlugins())
        .isNull();
  }

  @Test
  void runtimeNetworkKeepsItsTransitionTimeUntilReadinessChanges() {
    AtomicReference<RuntimeNetwork> said =
        new AtomicReference<>(
            new RuntimeNetwork()
                .setEndpoint("/run/containerd/containerd.sock")
                .setNetworkReady(false)
                .setReason("NetworkPluginNotReady"));
    Clock t0 = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
    Clock t5 = Clock.fixed(Instant.parse("2026-01-01T00:05:00Z"), ZoneOffset.UTC);
    CniNodeStatus first =
        new NodeStatusBuilder(t0, said::get, null).build(PASS, new Health(), null, 3L);
    CniNodeStatus same =
        new NodeStatusBuilder(t5, said::get, null).build(PASS, new Health(), first, 3L);
    assertThat(same).isEqualTo(first);
    assertThat(first.getRuntime().getLastTransitionTime()).isEqualTo("2026-01-01T00:00:00Z");

    said.set(
        new RuntimeNetwork().setEndpoint("/run/containerd/containerd.sock").setNetworkReady(true));
    RuntimeNetwork ready =
        new NodeStatusBuilder(t5, said::get, null)
            .build(PASS, new Health(), first, 3L)
            .getRuntime();
    assertThat(ready.getNetworkReady()).isTrue();
    assertThat(ready.getReason()).isNull();
    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-01-01T00:05:00Z");
  }

  @Test
  void noRuntimeReportedWithoutACriSocket() {
    assertThat(at("2026-01-01T00:00:00Z").build(PASS, new Health(), null, 3L).getRuntime())
        .isNull();
  }

  @Test
  void networksAndPluginsAreSortedAndAbsentPluginsLeftOut() {
    CniNodeStatus s = at("2026-01-01T00:00:00Z").build(PASS, new Health(), null, 3L);
    assertThat(s.getNetworks()).extracting("name").containsExactly("a", "b", "old");
    assertThat(s.getNetworks().get(2).getState()).isEqualTo(NetworkState.Removed);
    assertThat(s.getPlugins()).extracting("name").containsExactly("bridge", "host-local");
    assertThat(s.getPlugins().get(1).getOwner()).isEqualTo("external");
    assertThat(s.getSummary().getNetworks()).isEqualTo("1/2");
    assertThat(s.getDefaultNetwork()).isEqualTo("a");
    assertThat(s.getObservedGeneration()).isEqualTo(3L);
    assertThat(s.getConditions().get(0).getStatus()).isEqualTo("False");
    assertThat(s.getConditions().get(0).getMessage()).contains("a (Conflict)");
  }

  @Test
  void unparsableFilesAreReportedAndTheListIsLeftOutOnceThereAreNone() {
    UnparsableFile bad =
        new UnparsableFile()
            .setFile("/etc/cni/multus/net.d/10-bad.conf")
            .setError("error parsing configuration: missing 'type'");
    NodeSync.Result withBad =
        new NodeSync.Result(PASS.networks(), PASS.plugins(), List.of(), "a", List.of(bad));
    CniNodeStatus reported = at("2026-01-01T00:00:00Z").build(withBad, new Health(), null, 1L);
    assertThat(reported.getUnparsableFiles()).containsExactly(bad);
    assertThat(at("2026-01-01T00:01:00Z").build(PASS, new Health(), reported, 1L))
        .extracting(CniNodeStatus::getUnparsableFiles)
        .isNull();
  }

  @Test
  void removedNetworksStayReportedUntilTheyComeBack() {
    CniNodeStatus first = at("2026-01-01T00:00:00Z").build(PASS, new Health(), null, 3L);
    NodeSync.Result later =
        new NodeSync.Result(PASS.networks(), PASS.plugins(), List.of(), "a", List.of());
    assertThat(at("2026-01-01T00:01:00Z").build(later, new Health(), first, 3L).getNetworks())
        .extracting("name")
        .contains("old");
  }

  @Test
  void healthIsMergedIntoItsNetworkAndCounted() {
    Health health = new Health();
    health.update(
        "b",
        h ->
            h.withCheck(
                    new AttachmentSummary()
                        .setTotal(3)
                        .setHealthy(2)
                        .setFailing(List.of(new FailingAttachment().setContainerId("c1"))),
                    null,
                    "2026-01-01T00:00:00Z")
                .withCleanup(null, "brake: 8 of 10", null));
    CniNodeStatus s = at("2026-01-01T00:00:00Z").build(PASS, health, null, 1L);
    assertThat(s.getNetworks().get(1).getAttachments().getHealthy()).isEqualTo(2);
    assertThat(s.getNetworks().get(1).getMessage()).isEqualTo("brake: 8 of 10");
    assertThat(s.getSummary().getFailingAttachments()).isEqualTo(1);
  }

  @Test
  void aNetworkWhoseAppliedContentFailedItsProbeMakesTheNodeNotReadyNamingIt() {
    Health health = new Health();
    health.update(
        "b",
        h ->
            h.withProbe(
                new ProbeReport()
                    .setSha256("bb")
                    .setResult(ProbeResult.Failed)
                    .setMessage("ADD: Link not found")));

    CniNodeStatus s = at("2026-01-01T00:00:00Z").build(APPLIED, health, null, 1L);

    assertThat(s.getConditions().get(0).getStatus()).isEqualTo("False");
    assertThat(s.getConditions().get(0).getReason()).isEqualTo("ProbeFailed");
    assertThat(s.getConditions().get(0).getMessage())
        .isEqualTo("no attachment can be made: b: ADD: Link not found");

    // A failed probe of an earlier content says nothing about the content on disk.
    health.update("b", h -> h.withProbe(h.probe().setSha256("aa")));
    CniNodeStatus later = at("2026-01-01T00:00:00Z").build(APPLIED, health, s, 1L);
    assertThat(later.getConditions().get(0).getStatus()).isEqualTo("True");
  }

  @Test
  void uncheckedAttachmentsAreCountedApartFromFailingOnes() {
    Health health = new Health();
    health.update(
        "b",
        h ->
            h.withCheck(
                new AttachmentSummary()
                    .setTotal(2)
                    .setHealthy(0)
                    .setUnchecked(2)
                    .setUncheckedReason("no netns")
                    .setFailing(List.of()),
                null,
                "2026-01-01T00:00:00Z"));
    CniNodeStatus s = at("2026-01-01T00:00:00Z").build(PASS, health, null, 1L);
    assertThat(s.getSummary().getUncheckedAttachments()).isEqualTo(2);
    assertThat(s.getSummary().getFailingAttachments()).isZero();
  }

  private static NodeSync.Result podNetworkPass(RuntimeDefaultFile file, String... chain) {
    return new NodeSync.Result(
        List.of(
            new NetworkOutcome(
                "pods",
                "10-pods.conflist",
                NetworkState.Applied,
                "pp",
                "",
                false,
                Runtime,
                null,
                "pp",
                null),
            new NetworkOutcome(
                "bw",
                "05-cbr0.conflist",
                NetworkState.Applied,
                "ww",
                "",
                false,
                Runtime,
                null,
                "xx",
                null)),
        List.of(),
        List.of(),
        List.of(),
        Map.of(),
        file,
        List.of(chain),
        false);
  }

  private static Condition condition(CniNodeStatus s, String type) {
    return s.getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  private static Condition podNetworkReady(CniNodeStatus s) {
    return condition(s, "PodNetworkReady");
  }

  @Test
  void podNetworkIsReadyOnlyOnceItAndEveryChainOntoItAreProvenAtTheContentOnDisk() {
    RuntimeDefaultFile cbr0 =
        new RuntimeDefaultFile().setFileName("05-cbr0.conflist").setNetworkName("cbr0");
    Health health = new Health();
    health.update(
        "bw", h -> h.withProbe(new ProbeReport().setSha256("old").setResult(ProbeResult.Passed)));

    CniNodeStatus waiting =
        at("2026-01-01T00:00:00Z").build(podNetworkPass(cbr0, "bw"), health, null, 1L);
    assertThat(podNetworkReady(waiting).getStatus()).isEqualTo("False");
    assertThat(podNetworkReady(waiting).getReason()).isEqualTo("ChainNotProven");
    assertThat(podNetworkReady(waiting).getMessage())
        .isEqualTo("pod network cbr0 in 05-cbr0.conflist: bw is not proven yet");

    health.update("bw", h -> h.withProbe(h.probe().setSha256("ww").setResult(ProbeResult.Failed)));
    assertThat(
            podNetworkReady(
                    at("2026-01-01T00:01:00Z").build(podNetworkPass(cbr0, "bw"), health, null, 1L))
                .getMessage())
        .contains("bw failed its probe");

    health.update("bw", h -> h.withProbe(h.probe().setResult(ProbeResult.Passed)));
    CniNodeStatus proven =
        at("2026-01-01T00:02:00Z").build(podNetworkPass(cbr0, "bw"), health, waiting, 1L);
    assertThat(podNetworkReady(proven).getStatus()).isEqualTo("True");
    assertThat(podNetworkReady(proven).getReason()).isEqualTo("PodNetworkProven");
    assertThat(podNetworkReady(proven).getLastTransitionTime()).isEqualTo("2026-01-01T00:02:00Z");
    // The node's own Ready is about its networks; it says nothing of the pod network's chain.
    assertThat(proven.getConditions().get(0).getType()).isEqualTo("Ready");
  }

  @Test
  void anotherProductsPodNetworkWithNothingAppendedIsItsBusinessAndNoFileIsNotReady() {
    CniNodeStatus foreign =
        at("2026-01-01T00:00:00Z")
            .build(
                podNetworkPass(
                    new RuntimeDefaultFile()
                        .setFileName("05-cbr0.conflist")
                        .setNetworkName("cbr0")),
                new Health(),
                null,
                1L);
    assertThat(podNetworkReady(foreign).getStatus()).isEqualTo("True");
    assertThat(podNetworkReady(foreign).getMessage()).contains("another product's");

    CniNodeStatus none =
        at("2026-01-01T00:00:00Z").build(podNetworkPass(null), new Health(), null, 1L);
    assertThat(podNetworkReady(none).getStatus()).isEqualTo("False");
    assertThat(podNetworkReady(none).getReason()).isEqualTo("NoPodNetwork");
  }

  @Test
  void aStaleMultusCopyOfThePodNetworkIsNotReady() {
    RuntimeDefaultFile multus =
        new RuntimeDefaultFile()
            .setFileName("00-multus.conf")
            .setNetworkName("multus-cni-network")
            .setCopyOf("pods")
            .setCopyCurrent(false)
            .setMessage("00-multus.conf holds an older copy of pods");
    Health health = new Health();
    health.update(
        "pods", h -> h.withProbe(new ProbeReport().setSha256("pp").setResult(ProbeResult.Passed)));
    CniNodeStatus stale =
        at("2026-01-01T00:00:00Z").build(podNetworkPass(multus, "pods"), health, null, 1L);
    assertThat(podNetworkReady(stale).getReason()).isEqualTo("StaleCopy");
    assertThat(podNetworkReady(stale).getMessage()).contains("older copy of pods");

    CniNodeStatus current =
        at("2026-01-01T00:00:00Z")
            .build(podNetworkPass(multus.setCopyCurrent(true), "pods"), health, null, 1L);
    assertThat(podNetworkReady(current).getStatus()).isEqualTo("True");
  }

  @Test
  void theAgentsStartIsReportedToTheSecond() {
    Clock t = Clock.fixed(Instant.parse("2026-01-01T00:05:00Z"), ZoneOffset.UTC);
    CniNodeStatus s =
        new NodeStatusBuilder(t, () -> null, Instant.parse("2026-01-01T00:00:00.750Z"))
            .build(PASS, new Health(), null, 1L);
    assertThat(s.getAgentStartTime()).isEqualTo("2026-01-01T00:00:00Z");
  }

  private static Condition ready(CniNodeStatus s) {
    return condition(s, "Ready");
  }

  /**
   * Issue 52: a spec with fields this agent does not know changes nothing on the node, so the
   * status keeps what the last pass reported and says, naming the fields, why it is not ready.
   */
  @Test
  void aRefusedSpecKeepsWhatTheNodeReportedAndNamesTheUnknownFields() {
    NodeSync.Result applied =
        new NodeSync.Result(APPLIED.networks(), PASS.plugins(), List.of(), "b", List.of());
    CniNodeStatus before = at("2026-01-01T00:00:00Z").build(applied, new Health(), null, 3L);
    assertThat(ready(before).getStatus()).isEqualTo("True");
    List<String> unknown = List.of("spec.networks[0].newThing", "spec.plugins[1].arch");

    CniNodeStatus refused = at("2026-01-01T00:05:00Z").refused(before, unknown);

    assertThat(ready(refused).getStatus()).isEqualTo("False");
    assertThat(ready(refused).getReason()).isEqualTo("UnknownFields");
    assertThat(ready(refused).getMessage())
        .contains("spec.networks[0].newThing, spec.plugins[1].arch");
    assertThat(ready(refused).getLastTransitionTime()).isEqualTo("2026-01-01T00:05:00Z");
    assertThat(podNetworkReady(refused).getStatus()).isEqualTo("Unknown");
    assertThat(podNetworkReady(refused).getReason()).isEqualTo("UnknownFields");
    assertThat(podNetworkReady(refused).getMessage()).contains("spec.networks[0].newThing");
    assertThat(refused).usingRecursiveComparison().ignoringFields("conditions").isEqualTo(before);
    assertThat(refused.getObservedGeneration()).isEqualTo(3L);
    assertThat(refused.getNetworks()).extracting("name").containsExactly("b");
    assertThat(refused.getSummary().getNetworks()).isEqualTo("1/1");

    // Refused again later: an equal status, so nothing is written for it.
    assertThat(at("2026-01-01T00:09:00Z").refused(refused, unknown)).isEqualTo(refused);
    // Ready was False already: it keeps the time it became so.
    CniNodeStatus notReady = at("2026-01-01T00:00:00Z").build(PASS, new Health(), null, 3L);
    assertThat(ready(notReady).getStatus()).isEqualTo("False");
    assertThat(ready(at("2026-01-01T00:05:00Z").refused(notReady, unknown)).getLastTransitionTime())
        .isEqualTo("2026-01-01T00:00:00Z");
  }

  @Test
  void aSpecRefusedBeforeAnyPassHasOnlyTheConditions() {
    CniNodeStatus refused =
        at("2026-01-01T00:00:00Z").refused(null, List.of("spec.networks[0].newThing"));

    assertThat(refused.getConditions())
        .extracting(Condition::getType, Condition::getStatus, Condition::getReason)
        .containsExactly(
            tuple("Ready", "False", "UnknownFields"),
            tuple("PodNetworkReady", "Unknown", "UnknownFields"));
    assertThat(refused.getNetworks()).isNull();
    assertThat(refused.getObservedGeneration()).isNull();
  }

  /** What the network runs found, by network, as the builder reads it. */
  private static final class Health implements Function<String, NetworkHealth> {
    private final Map<String, NetworkHealth> byNetwork = new HashMap<>();

    void update(String network, UnaryOperator<NetworkHealth> change) {
      byNetwork.put(network, change.apply(apply(network)));
    }

    @Override
    public NetworkHealth apply(String network) {
      return byNetwork.getOrDefault(network, NetworkHealth.UNKNOWN);
    }
  }
}
