package dev.cnioperator.operator.network;

import static dev.cnioperator.operator.TestNetworks.network;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.operator.multus.AttachmentReport;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AttachmentDefinitionsConditionTest {
  private static final Instant T0 = Instant.parse("2026-11-21T05:00:00Z");
  private static final Instant T1 = Instant.parse("2026-11-21T05:10:00Z");
  private static final String SHA = "b".repeat(64);

  private final CniNetwork network = network("sec", "{\"type\":\"macvlan\"}");
  private final RenderedConfig rendered =
      new RenderedConfig()
          .setNetworkName("sec")
          .setFileName("50-sec.conflist")
          .setSha256(SHA)
          .setGeneration(3L);

  private static final AttachmentReport CREATED =
      new AttachmentReport(
          true,
          ConditionReason.CREATED,
          "NetworkAttachmentDefinition sec is in 2 namespaces",
          List.of("db", "shop"),
          Optional.of(Duration.ofSeconds(60)));
  private static final AttachmentReport CONFLICT =
      new AttachmentReport(
          false,
          ConditionReason.CONFLICT,
          "NetworkAttachmentDefinition db/sec exists and was not created by this network",
          List.of("shop"),
          Optional.of(Duration.ofSeconds(60)));

  /** The fold of a network whose one node proved the rendering, with its definitions. */
  private NetworkStatusFolder.Folded fold(AttachmentReport definitions, Instant now) {
    NodeNetworkStatus report =
        new NodeNetworkStatus()
            .setName("sec")
            .setState(NetworkState.Applied)
            .setAppliedSha256(SHA)
            .setProbe(
                new ProbeReport()
                    .setSha256(SHA)
                    .setResult(ProbeResult.Passed)
                    .setTime(T0.toString()));
    return new NetworkStatusFolder()
        .fold(
            network,
            new NetworkStatusFolder.Input(
                new Rendering.Accepted(rendered),
                rendered,
                List.of(new NodeReport("n1", report, null)),
                Map.of(),
                null,
                List.of(),
                Optional.of(definitions)),
            now);
  }

  private static Condition condition(NetworkStatusFolder.Folded folded, String type) {
    return folded.status().getConditions().stream()
        .filter(c -> c.getType().equals(type))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void allDefinitionsInPlaceLeaveReadyAsTheNodesSayAndListTheNamespaces() {
    NetworkStatusFolder.Folded folded = fold(CREATED, T0);

    assertThat(condition(folded, "Ready").getStatus()).isEqualTo("True");
    assertThat(folded.health().ready()).isTrue();
    Condition definitions = folded.status().getConditions().get(4);
    assertThat(definitions.getType()).isEqualTo("AttachmentDefinitions");
    assertThat(definitions.getStatus()).isEqualTo("True");
    assertThat(definitions.getReason()).isEqualTo("Created");
    assertThat(definitions.getMessage()).isEqualTo(CREATED.message());
    assertThat(folded.status().getAttachmentDefinitions()).containsExactly("db", "shop");
  }

  @Test
  void aMissingDefinitionKeepsReadyFalseThoughEveryNodeIsReady() {
    NetworkStatusFolder.Folded folded = fold(CONFLICT, T0);

    Condition ready = condition(folded, "Ready");
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("AttachmentDefinitionsMissing");
    assertThat(ready.getMessage())
        .startsWith("the nodes are ready (1/1 nodes hold sha256 bbbbbbbbbbbb")
        .endsWith("but pods cannot ask for this network in every namespace: " + CONFLICT.message());
    assertThat(folded.health().ready()).isFalse();
    assertThat(condition(folded, "AttachmentDefinitions").getReason()).isEqualTo("Conflict");
    assertThat(folded.status().getAttachmentDefinitions()).containsExactly("shop");
  }

  @Test
  void theConditionsKeepTheirTransitionTimeWhileTheirStatusHolds() {
    network.setStatus(fold(CONFLICT, T0).status());

    NetworkStatusFolder.Folded later = fold(CONFLICT, T1);
    NetworkStatusFolder.Folded resolved = fold(CREATED, T1);

    assertThat(later.status()).isEqualTo(network.getStatus());
    assertThat(condition(resolved, "Ready").getLastTransitionTime()).isEqualTo(T1.toString());
    assertThat(condition(resolved, "AttachmentDefinitions").getLastTransitionTime())
        .isEqualTo(T1.toString());
  }

  @Test
  void noDefinitionsLeaveTheListOut() {
    AttachmentReport none =
        new AttachmentReport(
            false, ConditionReason.NOT_INSTALLED, "no CRD", List.of(), Optional.empty());

    NetworkStatusFolder.Folded folded = fold(none, T0);

    assertThat(folded.status().getAttachmentDefinitions()).isNull();
  }
}
