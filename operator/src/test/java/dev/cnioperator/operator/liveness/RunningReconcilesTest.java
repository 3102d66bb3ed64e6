package dev.cnioperator.operator.liveness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.cnioperator.testkit.ManualClock;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

class RunningReconcilesTest {
  private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

  private final ManualClock clock = new ManualClock(T0);
  private final RunningReconciles running = new RunningReconciles(Metrics.NOOP, clock);

  @Test
  void aReconcileIsRunningFromItsStartUntilItReturnsAndTheOldestIsNamed() throws Exception {
    String result =
        running.timeControllerExecution(
            execution(
                "reconcile",
                "cninetwork",
                new ResourceID("dbnet"),
                () -> {
                  clock.advance(Duration.ofSeconds(5));
                  return running.timeControllerExecution(
                      execution(
                          "cleanup",
                          "cninetwork",
                          new ResourceID("old"),
                          () -> {
                            assertThat(running.oldest())
                                .hasValue(new RunningReconciles.Running("cninetwork/dbnet", T0));
                            return "done";
                          }));
                }));

    assertThat(result).isEqualTo("done");
    assertThat(running.oldest()).isEmpty();
  }

  @Test
  void aReconcileThatThrowsIsNoLongerRunning() {
    assertThatThrownBy(
            () ->
                running.timeControllerExecution(
                    execution(
                        "cleanup",
                        "cninetwork",
                        new ResourceID("dbnet"),
                        () -> {
                          assertThat(running.oldest())
                              .hasValue(
                                  new RunningReconciles.Running("cninetwork/dbnet (cleanup)", T0));
                          throw new IllegalStateException("boom");
                        })))
        .hasMessage("boom");

    assertThat(running.oldest()).isEmpty();
  }

  private static <T> Metrics.ControllerExecution<T> execution(
      String name, String controller, ResourceID id, Callable<T> body) {
    return new Metrics.ControllerExecution<>() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String controllerName() {
        return controller;
      }

      @Override
      public String successTypeName(T result) {
        return "ok";
      }

      @Override
      public ResourceID resourceID() {
        return id;
      }

      @Override
      public Map<String, Object> metadata() {
        return Map.of();
      }

      @Override
      public T execute() throws Exception {
        return body.call();
      }
    };
  }
}
