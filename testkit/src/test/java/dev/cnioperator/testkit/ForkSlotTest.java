package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class ForkSlotTest {
  @Test
  void aJvmWithoutTheSlotPropertyRunsAloneOnTheWholeRange() {
    assertThat(ForkSlot.slot(null)).isZero();
    assertThat(ForkSlot.slice(20000, 32767, 0)).containsExactly(20000, 32767);
  }

  @Test
  void moduleAndForkMakeDistinctSlots() {
    assertThat(ForkSlot.slot("0:1")).isEqualTo(1);
    assertThat(ForkSlot.slot("0:2")).isEqualTo(2);
    assertThat(ForkSlot.slot("6:3")).isEqualTo(6 * ForkSlot.FORKS + 3);
    assertThat(ForkSlot.slot(" 7:3 ")).isEqualTo(ForkSlot.SLOTS - 1);
  }

  @Test
  void aSlotPropertyInAnyOtherShapeIsRefusedByName() {
    // What Maven left when it emptied the fork number, and what it leaves unsubstituted.
    for (String bad : new String[] {"", "4:", "4", "4:${surefire.forkNumber}", "a:b", "4:1:2"}) {
      assertThatThrownBy(() -> ForkSlot.slot(bad))
          .as(bad)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("testkit.slot=" + bad)
          .hasMessageContaining("MODULE:FORK");
    }
    for (String outside : new String[] {"0:0", "0:5", "8:1", "7:4"}) {
      assertThatThrownBy(() -> ForkSlot.slot(outside))
          .as(outside)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("outside the slots");
    }
  }

  @Test
  void theSlotsSlicesOfARangeAreDisjointAndInsideIt() {
    int low = 20000;
    int high = 32767;
    BitSet taken = new BitSet();
    for (int slot = 1; slot < ForkSlot.SLOTS; slot++) {
      int[] slice = ForkSlot.slice(low, high, slot);
      assertThat(slice[0]).as("slot %d", slot).isGreaterThanOrEqualTo(low).isLessThan(slice[1]);
      assertThat(slice[1]).as("slot %d", slot).isLessThanOrEqualTo(high);
      assertThat(taken.get(slice[0], slice[1] + 1).isEmpty()).as("slot %d overlaps", slot).isTrue();
      taken.set(slice[0], slice[1] + 1);
    }
    // The bridge /24s: 256 values still give each slot its own.
    for (int slot = 1; slot < ForkSlot.SLOTS; slot++) {
      int[] slice = ForkSlot.slice(0, 255, slot);
      assertThat(slice[1] - slice[0] + 1).isEqualTo(256 / ForkSlot.SLOTS);
    }
  }

  @Test
  void aRangeTooSmallForTheSlotsIsRefused() {
    assertThatThrownBy(() -> ForkSlot.slice(0, ForkSlot.SLOTS - 2, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too small");
  }
}
