package dev.cnioperator.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.api.v1alpha1.Rollout;
import org.junit.jupiter.api.Test;

class BatchSizeTest {

  @Test
  void percentageRoundsUpAndNeverFallsBelowOneNode() {
    BatchSize size = new BatchSize(0, "25%");

    assertThat(size.limit(10)).isEqualTo(3);
    assertThat(size.limit(8)).isEqualTo(2);
    assertThat(size.limit(1)).isEqualTo(1);
    assertThat(size.limit(0)).isEqualTo(1);
    assertThat(new BatchSize(0, "100%").limit(7)).isEqualTo(7);
  }

  @Test
  void countIsTakenAsIs() {
    assertThat(new BatchSize(0, "3").limit(10)).isEqualTo(3);
  }

  @Test
  void canaryBatchComesFirstUnlessZero() {
    assertThat(new BatchSize(1, "50%").next(10, true)).isEqualTo(1);
    assertThat(new BatchSize(1, "50%").next(10, false)).isEqualTo(5);
    assertThat(new BatchSize(0, "50%").next(10, true)).isEqualTo(5);
  }

  @Test
  void unsetSettingsTakeTheDefaultsOfTheCrd() {
    assertThat(BatchSize.of(null)).isEqualTo(new BatchSize(1, "25%"));
    assertThat(BatchSize.of(new Rollout().setMaxNodes("2"))).isEqualTo(new BatchSize(1, "2"));
  }

  @Test
  void malformedMaxNodesIsRefusedNamingTheField() {
    assertThatThrownBy(() -> new BatchSize(1, "0%")).hasMessageContaining("spec.rollout.maxNodes");
    assertThatThrownBy(() -> new BatchSize(1, "150%"))
        .hasMessageContaining("spec.rollout.maxNodes");
  }
}
