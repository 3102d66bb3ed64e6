package dev.cnioperator.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.RenderedConfig;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodePlacementTest {

  private static AcceptedRevision revision(
      String resource, String createdAt, String networkName, int priority, LabelSelector selector) {
    return new AcceptedRevision(
        resource,
        createdAt,
        new RenderedConfig()
            .setNetworkName(networkName)
            .setFileName(String.format("%02d-%s.conflist", priority, networkName))
            .setNodeSelector(selector)
            .setSha256("0".repeat(64)));
  }

  private static AcceptedRevision revision(
      String resource, String createdAt, String networkName, int priority) {
    return revision(resource, createdAt, networkName, priority, null);
  }

  @Test
  void olderNetworkKeepsAClashingNetworkName() {
    AcceptedRevision older = revision("db-a", "2026-01-01T00:00:00Z", "db", 50);
    AcceptedRevision newer = revision("db-b", "2026-01-02T00:00:00Z", "db", 10);

    NodePlacement placement = NodePlacement.onNode(Map.of(), List.of(newer, older));

    assertThat(placement.placed()).containsExactly(older);
    assertThat(placement.blocked())
        .containsOnlyKeys("db-b")
        .extractingByKey("db-b")
        .isEqualTo(new Clash("db-a", "network name \"db\""));
  }

  @Test
  void olderNetworkKeepsAClashingFileName() {
    AcceptedRevision older = revision("x", "2026-01-01T00:00:00Z", "net", 50);
    AcceptedRevision newer =
        new AcceptedRevision(
            "y",
            "2026-01-02T00:00:00Z",
            new RenderedConfig().setNetworkName("other").setFileName("50-net.conflist"));

    NodePlacement placement = NodePlacement.onNode(Map.of(), List.of(older, newer));

    assertThat(placement.blocked().get("y").describe())
        .isEqualTo("file name \"50-net.conflist\" is held by CniNetwork \"x\"");
  }

  @Test
  void sameCreationTimeIsDecidedByResourceName() {
    AcceptedRevision b = revision("b", "2026-01-01T00:00:00Z", "db", 50);
    AcceptedRevision a = revision("a", "2026-01-01T00:00:00Z", "db", 50);

    assertThat(NodePlacement.onNode(Map.of(), List.of(b, a)).placed()).containsExactly(a);
    assertThat(NodePlacement.onNode(Map.of(), List.of(a, b)).placed()).containsExactly(a);
  }

  @Test
  void aNetworkTheNodeDoesNotSelectNeitherHoldsNorBlocksItsName() {
    LabelSelector gpuOnly = new LabelSelectorBuilder().addToMatchLabels("gpu", "true").build();
    AcceptedRevision older = revision("gpu-net", "2026-01-01T00:00:00Z", "db", 50, gpuOnly);
    AcceptedRevision newer = revision("db", "2026-01-02T00:00:00Z", "db", 50);

    NodePlacement plain = NodePlacement.onNode(Map.of("gpu", "false"), List.of(older, newer));
    NodePlacement gpu = NodePlacement.onNode(Map.of("gpu", "true"), List.of(older, newer));

    assertThat(plain.placed()).containsExactly(newer);
    assertThat(plain.blocked()).isEmpty();
    assertThat(gpu.placed()).containsExactly(older);
    assertThat(gpu.blocked()).containsOnlyKeys("db");
  }

  @Test
  void aBlockedNetworkDoesNotBlockOthers() {
    AcceptedRevision a = revision("a", "2026-01-01T00:00:00Z", "one", 50);
    AcceptedRevision b =
        new AcceptedRevision(
            "b",
            "2026-01-02T00:00:00Z",
            new RenderedConfig().setNetworkName("one").setFileName("50-two.conflist"));
    AcceptedRevision c = revision("c", "2026-01-03T00:00:00Z", "two", 50);

    assertThat(NodePlacement.onNode(Map.of(), List.of(a, b, c)).placed()).containsExactly(a, c);
  }

  /** A revision of {@code resource} whose plugins are appended to the network {@code target}. */
  private static AcceptedRevision appended(String resource, String createdAt, String target) {
    AcceptedRevision r = revision(resource, createdAt, target, 50);
    r.rendered().setAppendTo(target);
    return r;
  }

  /** The clash that keeps the newer of {@code older} and {@code newer} off, as people read it. */
  private static String clash(AcceptedRevision older, AcceptedRevision newer) {
    NodePlacement placement = NodePlacement.onNode(Map.of(), List.of(newer, older));
    assertThat(placement.placed()).containsExactly(older);
    return placement.blocked().get(newer.resource()).describe();
  }

  @Test
  void twoNetworksAppendingToOneClashOnItsName() {
    assertThat(
            clash(
                appended("shaping", "2026-01-01T00:00:00Z", "cbr0"),
                appended("tuning", "2026-01-02T00:00:00Z", "cbr0")))
        .isEqualTo(
            "network name \"cbr0\" is held by CniNetwork \"shaping\" (it appends to that network"
                + " too)");
  }

  @Test
  void aNetworkCannotAppendToTheNetworkOfAnotherCniNetwork() {
    assertThat(
            clash(
                revision("pod", "2026-01-01T00:00:00Z", "cbr0", 10),
                appended("shaping", "2026-01-02T00:00:00Z", "cbr0")))
        .isEqualTo(
            "network name \"cbr0\" is held by CniNetwork \"pod\" (its own network; spec.appendTo"
                + " names another product's)");
    assertThat(
            clash(
                appended("shaping", "2026-01-01T00:00:00Z", "cbr0"),
                revision("pod", "2026-01-02T00:00:00Z", "cbr0", 10)))
        .isEqualTo(
            "network name \"cbr0\" is held by CniNetwork \"shaping\" (it appends to that network)");
  }
}
