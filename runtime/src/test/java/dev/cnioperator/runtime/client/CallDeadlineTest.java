package dev.cnioperator.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallDeadlineTest {
  private final CallDeadline deadline = new CallDeadline(Duration.ofMillis(300));

  @Test
  void anAnswerInTimeIsReturned() {
    assertThat(deadline.call("read", () -> "answer")).isEqualTo("answer");
  }

  @Test
  void theCallsOwnFailureIsThrownAsItWas() {
    KubernetesClientException refused = new KubernetesClientException("forbidden", 403, null);
    assertThatThrownBy(
            () ->
                deadline.call(
                    "write",
                    () -> {
                      throw refused;
                    }))
        .isSameAs(refused);
  }

  @Test
  void aCallPastTheDeadlineFailsNamingWhatItDidAndIsInterrupted() throws InterruptedException {
    CountDownLatch interrupted = new CountDownLatch(1);
    assertThatThrownBy(
            () ->
                deadline.run(
                    "write the status of CniNode n1",
                    () -> {
                      try {
                        Thread.sleep(60_000);
                      } catch (InterruptedException e) {
                        interrupted.countDown();
                      }
                    }))
        .isInstanceOf(KubernetesClientException.class)
        .hasMessage("write the status of CniNode n1: no answer from the API server within 300ms");
    assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aDeadlineMustBePositive() {
    assertThatThrownBy(() -> new CallDeadline(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("positive");
  }
}
