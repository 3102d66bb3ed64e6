package dev.cnioperator.agent.network;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.AttachmentSummary;
import dev.cnioperator.api.v1alpha1.FailingAttachment;
import java.util.List;
import org.junit.jupiter.api.Test;

class NetworkHealthTest {
  private static AttachmentSummary healthy(int n) {
    return new AttachmentSummary().setTotal(n).setHealthy(n).setFailing(List.of());
  }

  @Test
  void theLastCheckTimeMovesOnlyWhenTheResultChanges() {
    NetworkHealth first = NetworkHealth.UNKNOWN.withCheck(healthy(2), "Available", "T1");
    assertThat(first.lastCheckTime()).isEqualTo("T1");

    NetworkHealth same = first.withCheck(healthy(2), "Available", "T2");
    assertThat(same).isEqualTo(first);

    AttachmentSummary failing =
        new AttachmentSummary()
            .setTotal(2)
            .setHealthy(1)
            .setFailing(List.of(new FailingAttachment().setContainerId("c1")));
    assertThat(same.withCheck(failing, "Available", "T3").lastCheckTime()).isEqualTo("T3");
    assertThat(same.withCheck(healthy(2), "plugin down", "T4").lastCheckTime()).isEqualTo("T4");
  }

  @Test
  void aCleanupKeepsTheLastCheckTime() {
    NetworkHealth h = NetworkHealth.UNKNOWN.withCheck(healthy(1), null, "T1");
    assertThat(h.withCleanup(null, "brake", null).lastCheckTime()).isEqualTo("T1");
  }
}
