package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Failsafe's forks each have a slot of their own: the root pom's configuration reaches the JVM. Run
 * outside Maven (no {@code testkit.slot}), this fails by design: it tests that configuration.
 */
class ForkSlotIT {
  @Test
  void thisForkHasTheSlotOfItsModuleAndForkNumber() {
    assertThat(System.getProperty(ForkSlot.PROPERTY))
        .as("the root pom passes %s to failsafe's forks", ForkSlot.PROPERTY)
        .matches("0:[12]");
    assertThat(ForkSlot.current()).isBetween(1, 2);
  }
}
