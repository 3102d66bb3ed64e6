package dev.cnioperator.agent.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PendingStatusTest {
  /**
   * The reconcile that removed a network's files is the only one that knows it; a later reconcile
   * that comes before the status write must not lose it (NodeAgentLifecycleIT once waited 30 s for
   * a Removed that no write carried).
   */
  @Test
  void aRemovalIsCarriedByTheNextWriteThoughALaterReconcileCameFirst() {
    PendingStatus pending = new PendingStatus();
    long first = pending.reconciled(List.of("n2"));
    assertThat(pending.asked(first, Set.of("n1"))).isTrue();
    long second = pending.reconciled(List.of());
    pending.asked(second, Set.of("n1"));
    assertThat(pending.removed()).containsExactly("n2");
    pending.reported("n1", second);
    assertThat(pending.writable()).isTrue();
    pending.written();
    assertThat(pending.removed()).isEmpty();
  }

  /** A report that answers an earlier reconcile does not end the wait of a later one. */
  @Test
  void onlyAReportNamingTheLastReconcileEndsTheWait() {
    PendingStatus pending = new PendingStatus();
    long first = pending.reconciled(List.of());
    pending.asked(first, Set.of("n1", "n2"));
    long second = pending.reconciled(List.of());
    pending.asked(second, Set.of("n1"));
    pending.reported("n1", first);
    assertThat(pending.writable()).isFalse();
    pending.reported("n1", second);
    assertThat(pending.writable()).isTrue();
  }

  /**
   * Reconciles that come faster than the networks' runs end keep waiting, but the wait is timed
   * from the first of them: its time-out still ends it, and a later one's begins nothing.
   */
  @Test
  void theWaitIsTimedFromItsFirstReconcile() {
    PendingStatus pending = new PendingStatus();
    long first = pending.reconciled(List.of());
    assertThat(pending.asked(first, Set.of("n1"))).as("begins the wait").isTrue();
    long second = pending.reconciled(List.of());
    assertThat(pending.asked(second, Set.of("n1"))).as("waits on").isFalse();
    assertThat(pending.late(second)).isEmpty();
    assertThat(pending.late(first)).containsExactly("n1");
    assertThat(pending.writable()).isTrue();
    assertThat(pending.late(first)).as("once").isEmpty();
  }

  /** A reconcile that asks no network may write at once, whatever an earlier one waited for. */
  @Test
  void aReconcileThatAsksNoNetworkEndsTheWait() {
    PendingStatus pending = new PendingStatus();
    long first = pending.reconciled(List.of());
    pending.asked(first, Set.of("n1"));
    long second = pending.reconciled(List.of());
    assertThat(pending.asked(second, Set.of())).isFalse();
    assertThat(pending.writable()).isTrue();
    assertThat(pending.late(first)).isEmpty();
  }
}
