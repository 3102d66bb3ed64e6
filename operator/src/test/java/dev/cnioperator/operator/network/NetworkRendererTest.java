package dev.cnioperator.operator.network;

import static dev.cnioperator.operator.TestNetworks.network;
import static dev.cnioperator.operator.TestNetworks.object;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.reasons.ConditionReason;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkSpec;
import dev.cnioperator.api.v1alpha1.IpamCleanup;
import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.SpecVersion;
import dev.cnioperator.cni.config.ConfigProblem;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import org.junit.jupiter.api.Test;

class NetworkRendererTest {
  private final NetworkRenderer renderer = new NetworkRenderer();

  /** Asserts that {@code n} is refused for {@code reason} with exactly {@code message}. */
  private void assertRefused(CniNetwork n, ConditionReason reason, String message) {
    Rendering.Refused refused = (Rendering.Refused) renderer.render(n);

    assertThat(refused.reason()).isEqualTo(reason);
    assertThat(refused.message()).isEqualTo(message);
  }

  @Test
  void rendersTheConflistWithDefaultsAndFileName() {
    CniNetwork n = network("dbnet", "{\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\"}}");

    RenderedConfig r = ((Rendering.Accepted) renderer.render(n)).rendered();

    assertThat(r.getFileName()).isEqualTo("50-dbnet.conflist");
    assertThat(r.getNetworkName()).isEqualTo("dbnet");
    assertThat(r.getCniVersion()).isEqualTo(SpecVersion.V1_0_0);
    assertThat(r.getGeneration()).isEqualTo(3L);
    assertThat(r.getPluginBinaries()).containsExactly("bridge", "host-local");
    assertThat(object(r.getContent()))
        .isEqualTo(
            object(
                "{\"cniVersion\":\"1.0.0\",\"name\":\"dbnet\",\"plugins\":[{\"type\":\"bridge\",\"ipam\":{\"type\":\"host-local\"}}]}"));
  }

  @Test
  void sameSpecGivesTheSameBytesWhateverTheKeyOrder() {
    CniNetwork a = network("n", "{\"type\":\"bridge\",\"bridge\":\"br0\",\"isGateway\":true}");
    CniNetwork b = network("n", "{\"isGateway\":true,\"bridge\":\"br0\",\"type\":\"bridge\"}");

    RenderedConfig ra = ((Rendering.Accepted) renderer.render(a)).rendered();
    RenderedConfig rb = ((Rendering.Accepted) renderer.render(b)).rendered();

    assertThat(ra.getContent()).isEqualTo(rb.getContent());
    assertThat(ra.getSha256()).isEqualTo(rb.getSha256()).hasSize(64);
  }

  @Test
  void priorityIsTwoDigitsSoFilesSortByIt() {
    CniNetwork n = network("early", "{\"type\":\"loopback\"}");
    n.getSpec().setPriority(5);

    assertThat(((Rendering.Accepted) renderer.render(n)).rendered().getFileName())
        .isEqualTo("05-early.conflist");
  }

  @Test
  void aNameTooLongForAFileIsRefusedNamingTheField() {
    CniNetwork n = network("x".repeat(250), "{\"type\":\"bridge\"}");

    Rendering.Refused refused = (Rendering.Refused) renderer.render(n);

    assertThat(refused.problems()).extracting(ConfigProblem::path).containsExactly("metadata.name");
    assertThat(refused.message()).contains("longer than 255 bytes");
  }

  @Test
  void problemsAreNamedByTheirCniNetworkField() {
    CniNetwork n = network("bad", "{\"type\":\"bridge\",\"cni.dev/x\":1}");
    n.getSpec().setDisableGC(true);

    Rendering.Refused refused = (Rendering.Refused) renderer.render(n);

    assertThat(refused.reason()).isEqualTo(ConditionReason.INVALID_CONFIGURATION);
    assertThat(refused.problems())
        .extracting(ConfigProblem::path)
        .containsExactlyInAnyOrder("spec.disableGC", "spec.plugins[0][\"cni.dev/x\"]");
    assertThat(refused.message()).startsWith("spec.");
  }

  @Test
  void anInvalidNodeSelectorIsRefusedBeforeTheConfiguration() {
    CniNetwork n = network("sel", "{\"type\":\"bridge\"}");
    n.getSpec()
        .setNodeSelector(
            new LabelSelectorBuilder()
                .addNewMatchExpression()
                .withKey("a")
                .withOperator("In")
                .endMatchExpression()
                .build());

    assertRefused(
        n,
        ConditionReason.INVALID_NODE_SELECTOR,
        "spec.nodeSelector.matchExpressions[0].values: operator In needs at least one value");
  }

  @Test
  void invalidNodeSlicesAreRefusedNamingTheFieldAndWhatIsWrong() {
    CniNetwork n = network("sl", "{\"type\":\"bridge\"}");
    n.getSpec().setNodeSlices(new NodeSlices().setSubnet("10.200.16.7/24").setPrefixLength(24));

    assertRefused(
        n,
        ConditionReason.INVALID_NODE_SLICES,
        "spec.nodeSlices.subnet: 10.200.16.7/24 has host bits set: the subnet it lies in is"
            + " 10.200.16.0/24; write that; spec.nodeSlices.prefixLength: 24 must be longer"
            + " than the subnet's /24, so that the subnet holds a slice for each node");
  }

  @Test
  void aRevisionRecordsTheNodeSlicesItsSlicesAreCutFrom() {
    CniNetwork n = network("sl", "{\"type\":\"bridge\"}");
    NodeSlices slices = new NodeSlices().setSubnet("fd00:10::/56").setPrefixLength(64);
    n.getSpec().setNodeSlices(slices);

    RenderedConfig r = ((Rendering.Accepted) renderer.render(n)).rendered();

    assertThat(r.getNodeSlices()).isEqualTo(slices);
    assertThat(
            ((Rendering.Accepted) renderer.render(network("plain", "{\"type\":\"bridge\"}")))
                .rendered()
                .getNodeSlices())
        .isNull();
  }

  /**
   * Issue 52: a spec written for a newer operator (its CRD left in place by a rollback) is refused
   * whole, naming each field this one does not know, before anything else is judged.
   */
  @Test
  void aSpecWithFieldsThisOperatorDoesNotKnowIsRefusedNamingThem() {
    CniNetwork n = network("future");
    n.setSpec(
        Serialization.unmarshal(
            "{\"priority\":5,\"plugins\":[{\"type\":\"bridge\",\"cni.dev/x\":1}],"
                + "\"futureField\":\"x\",\"rollout\":{\"maxNodes\":\"1\",\"surge\":2}}",
            CniNetworkSpec.class));

    Rendering.Refused refused = (Rendering.Refused) renderer.render(n);

    assertThat(refused.reason()).isEqualTo(ConditionReason.UNKNOWN_FIELDS);
    assertThat(refused.problems())
        .extracting(ConfigProblem::path)
        .containsExactly("spec.futureField", "spec.rollout.surge");
    assertThat(refused.message())
        .startsWith("spec.futureField: not a field this operator knows")
        .contains("spec.rollout.surge: ");
  }

  /** A network whose plugins are appended to flannel's cbr0, with a per-node value. */
  private static CniNetwork appendedToCbr0() {
    CniNetwork n = network("bandwidth", "{\"type\":\"bandwidth\",\"node\":\"$(node.name)\"}");
    n.getSpec().setAppendTo("cbr0");
    return n;
  }

  @Test
  void anAppendedNetworkIsNamedAfterTheNetworkItAppendsTo() {
    RenderedConfig r = ((Rendering.Accepted) renderer.render(appendedToCbr0())).rendered();

    assertThat(r.getNetworkName()).isEqualTo("cbr0");
    assertThat(r.getAppendTo()).isEqualTo("cbr0");
    assertThat(r.getFileName()).isEqualTo("50-cbr0.conflist");
    assertThat(r.getPluginBinaries()).containsExactly("bandwidth");
    // The per-node value stays a template, rendered for each node.
    assertThat(object(r.getContent()))
        .isEqualTo(
            object(
                "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"plugins\":[{\"type\":\"bandwidth\",\"node\":\"$(node.name)\"}]}"));
    assertThat(
            ((Rendering.Accepted) renderer.render(network("own", "{\"type\":\"bridge\"}")))
                .rendered()
                .getAppendTo())
        .isNull();
  }

  /**
   * spec.appendAs is not part of the revision: an operator of 0.2.0, rolled back to, hashes the
   * fields it knows and cannot read a status.rendered with one it does not (DesiredNodeSpecTest for
   * how it reaches the nodes).
   */
  @Test
  void appendAsLeavesTheRevisionAsItIs() {
    RenderedConfig inPlace = ((Rendering.Accepted) renderer.render(appendedToCbr0())).rendered();
    CniNetwork dropIn = appendedToCbr0();
    dropIn.getSpec().setAppendAs(AppendPlacement.DropIn);

    assertThat(((Rendering.Accepted) renderer.render(dropIn)).rendered()).isEqualTo(inPlace);
  }

  @Test
  void anAppendedNetworkCannotSetDisableGcOfTheListItAppendsTo() {
    CniNetwork n = appendedToCbr0();
    n.getSpec().setDisableGC(false);

    assertRefused(
        n,
        ConditionReason.INVALID_CONFIGURATION,
        "spec.disableGC: disableGC is a field of a whole configuration list, and spec.appendTo"
            + " appends plugins to another product's list, whose disableGC is its own; remove"
            + " spec.disableGC");
  }

  @Test
  void aProblemOfTheNameOfAnAppendedNetworkNamesAppendTo() {
    CniNetwork n = appendedToCbr0();
    n.getSpec().setAppendTo("cbr/0");

    Rendering.Refused refused = (Rendering.Refused) renderer.render(n);

    assertThat(refused.problems()).extracting(ConfigProblem::path).containsExactly("spec.appendTo");
  }

  /**
   * Not refused: the API server writes ipamCleanup.enabled true into every spec that leaves it out,
   * so a true written on purpose looks the same; the node gets cleanup off (DesiredNodeSpecTest).
   */
  @Test
  void anAppendedNetworkWithCleanupEnabledIsAccepted() {
    CniNetwork n = appendedToCbr0();
    n.getSpec().setIpamCleanup(new IpamCleanup().setEnabled(true));

    assertThat(renderer.render(n)).isInstanceOf(Rendering.Accepted.class);
  }
}
