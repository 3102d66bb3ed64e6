package dev.cnioperator.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.NodeSlices;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutPhase;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.operator.rollout.NodeRevisionChoice.Placing;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class AcceptedRevisionTest {
  private static final RenderedConfig NEW = rendering("{\"name\":\"new\"}");
  private static final RenderedConfig STABLE = rendering("{\"name\":\"stable\"}");

  private final RevisionIntegrity integrity = new RevisionIntegrity();

  private static RenderedConfig rendering(String content) {
    return new RenderedConfig()
        .setNetworkName("net")
        .setFileName("50-net.conflist")
        .setContent(content)
        .setSha256(Sha256.hex(content.getBytes(StandardCharsets.UTF_8)));
  }

  private static Placing rollout(RenderedConfig stable) {
    return Placing.of(
        new RolloutStatus()
            .setRevision(NEW.getSha256())
            .setStableRevision(STABLE.getSha256())
            .setStable(stable)
            .setPhase(RolloutPhase.Progressing)
            .setBatch(List.of("admitted")));
  }

  @Test
  void anAdmittedNodeGetsTheNewRevisionAndAHeldBackNodeTheStableOne() {
    assertThat(AcceptedRevision.forNode("net", NEW, rollout(STABLE), "admitted", null, integrity))
        .isSameAs(NEW);
    assertThat(AcceptedRevision.forNode("net", NEW, rollout(STABLE), "other", null, integrity))
        .isSameAs(STABLE);
    assertThat(AcceptedRevision.forNode("net", NEW, null, "other", null, integrity)).isSameAs(NEW);
  }

  @Test
  void aDamagedStableRevisionIsNeverHandedOut() {
    RenderedConfig damaged = rendering("{\"name\":\"stable\"}").setContent("{\"name\":\"st");

    assertThat(AcceptedRevision.forNode("net", NEW, rollout(damaged), "other", null, integrity))
        .isSameAs(NEW);
  }

  private static RenderedConfig withSlices(String subnet, int prefixLength) {
    NodeSlices slices = new NodeSlices().setSubnet(subnet).setPrefixLength(prefixLength);
    RenderedConfig r = rendering("{\"name\":\"new\"}").setNodeSlices(slices);
    return r.setSha256(AcceptedRevision.identity(r.getContent(), slices, null));
  }

  @Test
  void anEditOfNodeSlicesAloneIsANewRevision() {
    String plain = NEW.getSha256();
    String sliced = withSlices("10.200.16.0/24", 26).getSha256();

    assertThat(sliced).isNotEqualTo(plain);
    assertThat(withSlices("10.200.32.0/24", 26).getSha256()).isNotEqualTo(sliced);
    assertThat(withSlices("10.200.16.0/24", 27).getSha256()).isNotEqualTo(sliced);
    assertThat(withSlices("10.200.16.0/24", 26).getSha256())
        .as("identical specs, identical revisions")
        .isEqualTo(sliced);
    assertThat(AcceptedRevision.identity(NEW.getContent(), null, null))
        .as("without nodeSlices, the sha256 of the content as before")
        .isEqualTo(plain);
  }

  @Test
  void theSamePluginsAppendedToAnotherNetworkAreANewRevision() {
    // networkName: cbr0 with these plugins, then appendTo: cbr0 with the same: the same content,
    // another revision, so that the switch is rolled out in stages and probed like any edit.
    String own = AcceptedRevision.identity(NEW.getContent(), null, null);
    String appended = AcceptedRevision.identity(NEW.getContent(), null, "cbr0");
    assertThat(appended).isNotEqualTo(own);
    assertThat(AcceptedRevision.identity(NEW.getContent(), null, "k8s-pod-network"))
        .isNotEqualTo(appended);
    RenderedConfig r = rendering("{\"name\":\"new\"}").setAppendTo("cbr0");
    r.setSha256(AcceptedRevision.identity(r.getContent(), null, "cbr0"));
    RevisionIntegrity integrity = new RevisionIntegrity();
    assertThat(integrity.isIntact(r)).isTrue();
    assertThat(integrity.isIntact(r.setAppendTo("k8s-pod-network")))
        .as("a rendering whose appendTo its sha256 does not cover")
        .isFalse();
  }

  @Test
  void aRevisionIsIntactOnlyWhenItsNodeSlicesAreThoseItsSha256Covers() {
    RenderedConfig r = withSlices("10.200.16.0/24", 26);
    assertThat(integrity.isIntact(r)).isTrue();

    r.getNodeSlices().setPrefixLength(27);
    assertThat(integrity.isIntact(r)).as("nodeSlices edited in the status").isFalse();
  }

  @Test
  void aSha256OfTheContentAloneDoesNotCoverDeclaredNodeSlices() {
    RenderedConfig r = withSlices("10.200.16.0/24", 26);
    r.setSha256(Sha256.hex(r.getContent().getBytes(StandardCharsets.UTF_8)));

    assertThat(integrity.isIntact(r)).isFalse();
  }
}
