package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostMountsTest {
  @Test
  void mountinfoEscapesAreDecoded() {
    assertThat(HostMounts.unescape("/tmp/a\\040b\\011c\\134d")).isEqualTo("/tmp/a b\tc\\d");
    assertThat(HostMounts.unescape("/tmp/plain\\x")).isEqualTo("/tmp/plain\\x");
  }
}
