package dev.cnioperator.operator.placement;

import static org.assertj.core.api.Assertions.assertThat;

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

  private static RenderedConfig rendering(String content) {
    return new RenderedConfig()
        .withNetworkName("net")
        .withFileName("50-net.conflist")
        .withContent(content)
        .withSha256(Sha256.hex(content.getBytes(StandardCharsets.UTF_8)));
  }

  private static Placing rollout(RenderedConfig stable) {
    return Placing.of(
        new RolloutStatus()
            .withRevision(NEW.getSha256())
            .withStableRevision(STABLE.getSha256())
            .withStable(stable)
            .withPhase(RolloutPhase.Progressing)
            .withBatch(List.of("admitted")));
  }

  @Test
  void anAdmittedNodeGetsTheNewRevisionAndAHeldBackNodeTheStableOne() {
    assertThat(AcceptedRevision.forNode("net", NEW, rollout(STABLE), "admitted", null))
        .isSameAs(NEW);
    assertThat(AcceptedRevision.forNode("net", NEW, rollout(STABLE), "other", null))
        .isSameAs(STABLE);
    assertThat(AcceptedRevision.forNode("net", NEW, null, "other", null)).isSameAs(NEW);
  }

  @Test
  void aDamagedStableRevisionIsNeverHandedOut() {
    RenderedConfig damaged = rendering("{\"name\":\"stable\"}").withContent("{\"name\":\"st");

    assertThat(AcceptedRevision.forNode("net", NEW, rollout(damaged), "other", null)).isSameAs(NEW);
  }
}
