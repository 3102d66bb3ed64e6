package dev.cnioperator.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.UnparsableFile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnparsableFileAlertsTest {
  private final List<String> events = new ArrayList<>();
  private final UnparsableFileAlerts alerts = new UnparsableFileAlerts();

  private static UnparsableFile file(String name, String error) {
    return new UnparsableFile().setFile("/etc/cni/multus/net.d/" + name).setError(error);
  }

  private void pass(UnparsableFile... now) {
    alerts.update(List.of(now), (reason, message) -> events.add(reason + ": " + message));
  }

  @Test
  void aFileGetsOneEventOnTheCniNodeAndAnotherOnlyWhenItFailsAnotherWayOrComesBack() {
    pass(file("10-a.conf", "missing 'type'"));
    pass(file("10-a.conf", "missing 'type'"));
    assertThat(events)
        .singleElement()
        .asString()
        .startsWith("UnparsableMultusConfig: Multus cannot parse /etc/cni/multus/net.d/10-a.conf")
        .contains("missing 'type'");

    pass(file("10-a.conf", "no name"), file("20-b.conflist", "no plugins in list"));
    assertThat(events).hasSize(3);
    pass();
    pass(file("10-a.conf", "no name"));
    assertThat(events).hasSize(4);
  }
}
