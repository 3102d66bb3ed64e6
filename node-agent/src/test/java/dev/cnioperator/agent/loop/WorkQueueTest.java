package dev.cnioperator.agent.loop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkQueueTest {
  /** Records each run's key; a run of {@link #blocked} holds until {@link #release} opens. */
  private static final class Recorder {
    final String blocked;
    final CountDownLatch release = new CountDownLatch(1);
    final Semaphore began = new Semaphore(0);
    final Semaphore ended = new Semaphore(0);
    final AtomicInteger atOnce = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final List<String> runs = new CopyOnWriteArrayList<>();

    Recorder(String blocked) {
      this.blocked = blocked;
    }

    WorkQueue<String> queue(int workers) {
      return new WorkQueue<>(workers, "test-worker", this::run);
    }

    private void run(String key) {
      runs.add(key);
      if (key.equals(blocked)) {
        most.accumulateAndGet(atOnce.incrementAndGet(), Math::max);
        began.release();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        atOnce.decrementAndGet();
      }
      ended.release();
    }
  }

  /**
   * A key added while it is worked on is worked on once more afterwards, never beside the run under
   * way, however many times it was added meanwhile; another key is worked on beside it.
   */
  @Test
  void aKeyIsWorkedOnByOneWorkerAtATimeAndAgainAfterAnAddDuringItsRun() throws Exception {
    Recorder recorder = new Recorder("a");
    try (WorkQueue<String> queue = recorder.queue(2)) {
      queue.add("a");
      assertThat(recorder.began.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
      queue.add("a");
      queue.add("a");
      queue.add("b");
      assertThat(recorder.ended.tryAcquire(10, TimeUnit.SECONDS)).as("b beside a's run").isTrue();
      assertThat(recorder.runs).containsExactly("a", "b");
      recorder.release.countDown();
      assertThat(recorder.ended.tryAcquire(2, 10, TimeUnit.SECONDS))
          .as("a's run, then one more")
          .isTrue();
      assertThat(recorder.runs).containsExactly("a", "b", "a");
      assertThat(recorder.most).as("runs of a at once").hasValue(1);
    }
  }

  /** Adds before a run began are folded into it. */
  @Test
  void addsBeforeARunBeginsAreFoldedIntoIt() throws Exception {
    Recorder recorder = new Recorder("block");
    try (WorkQueue<String> queue = recorder.queue(1)) {
      queue.add("block");
      assertThat(recorder.began.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
      queue.add("a");
      queue.add("a");
      recorder.release.countDown();
      assertThat(recorder.ended.tryAcquire(2, 10, TimeUnit.SECONDS)).isTrue();
      assertThat(recorder.runs).containsExactly("block", "a");
    }
  }
}
