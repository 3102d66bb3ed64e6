package dev.cnioperator.operator.memo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class BoundedMemoTest {

  @Test
  void pastItsCapacityItForgetsTheLeastRecentlyUsed() {
    BoundedMemo<String, Integer> memo = new BoundedMemo<>(2);
    memo.put("a", 1);
    memo.put("b", 2);
    assertThat(memo.get("a")).as("a is now the most recently used").isEqualTo(1);

    memo.put("c", 3);

    assertThat(memo.get("b")).as("the least recently used").isNull();
    assertThat(memo.get("a")).isEqualTo(1);
    assertThat(memo.get("c")).isEqualTo(3);
    assertThat(memo.size()).isEqualTo(2);
  }

  @Test
  void aValueIsComputedOnceWhileItIsRemembered() {
    BoundedMemo<String, Integer> memo = new BoundedMemo<>(4);
    AtomicInteger computed = new AtomicInteger();

    memo.computeIfAbsent("a", k -> computed.incrementAndGet());
    memo.computeIfAbsent("a", k -> computed.incrementAndGet());

    assertThat(computed).hasValue(1);
    assertThat(memo.computeIfAbsent("a", k -> 99)).isEqualTo(1);
  }

  @Test
  void reconcilesOnManyThreadsNeverSeeItOverItsCapacityNorAWrongValue() throws Exception {
    BoundedMemo<Integer, String> memo = new BoundedMemo<>(8);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 20_000; i++) {
                    int key = i % 13;
                    assertThat(memo.computeIfAbsent(key, k -> "v" + k)).isEqualTo("v" + key);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(memo.size()).isEqualTo(8);
  }

  @Test
  void itRemembersAtLeastOneAndNoNull() {
    assertThatThrownBy(() -> new BoundedMemo<String, String>(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BoundedMemo<String, String>(1).put("a", null))
        .isInstanceOf(NullPointerException.class);
  }
}
