package dev.cnioperator.operator.liveness;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.api.reconciler.RetryInfo;
import io.javaoperatorsdk.operator.processing.Controller;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * JOSDK's metrics hook, passed on to {@code delegate} (its Micrometer meters), that also keeps
 * which reconciles and cleanups run now and since when: the liveness check reads the oldest.
 */
public final class RunningReconciles implements Metrics {

  /** A reconcile (or cleanup) running now: "controller/resource" and when it started. */
  public record Running(String what, Instant since) {}

  private final Metrics delegate;
  private final Clock clock;
  private final Map<String, Instant> running = new ConcurrentHashMap<>();

  public RunningReconciles(Metrics delegate, Clock clock) {
    this.delegate = delegate;
    this.clock = clock;
  }

  /** The reconcile that has run longest, if one runs. */
  public Optional<Running> oldest() {
    return running.entrySet().stream()
        .min(Map.Entry.comparingByValue())
        .map(e -> new Running(e.getKey(), e.getValue()));
  }

  @Override
  public <T> T timeControllerExecution(ControllerExecution<T> execution) throws Exception {
    // JOSDK never runs two executions of one resource in one controller at once, so the key is
    // unique while it runs.
    String key =
        execution.controllerName()
            + "/"
            + name(execution.resourceID())
            + (execution.name().equals("reconcile") ? "" : " (" + execution.name() + ")");
    running.put(key, clock.instant());
    try {
      return delegate.timeControllerExecution(execution);
    } finally {
      running.remove(key);
    }
  }

  private static String name(ResourceID id) {
    return id.getNamespace().map(ns -> ns + "/").orElse("") + id.getName();
  }

  @Override
  public void controllerRegistered(Controller<? extends HasMetadata> controller) {
    delegate.controllerRegistered(controller);
  }

  @Override
  public void receivedEvent(Event event, Map<String, Object> metadata) {
    delegate.receivedEvent(event, metadata);
  }

  @Override
  public void reconcileCustomResource(
      HasMetadata resource, RetryInfo retryInfo, Map<String, Object> metadata) {
    delegate.reconcileCustomResource(resource, retryInfo, metadata);
  }

  @Override
  public void failedReconciliation(
      HasMetadata resource, Exception exception, Map<String, Object> metadata) {
    delegate.failedReconciliation(resource, exception, metadata);
  }

  @Override
  public void reconciliationExecutionStarted(HasMetadata resource, Map<String, Object> metadata) {
    delegate.reconciliationExecutionStarted(resource, metadata);
  }

  @Override
  public void reconciliationExecutionFinished(HasMetadata resource, Map<String, Object> metadata) {
    delegate.reconciliationExecutionFinished(resource, metadata);
  }

  @Override
  public void cleanupDoneFor(ResourceID resourceID, Map<String, Object> metadata) {
    delegate.cleanupDoneFor(resourceID, metadata);
  }

  @Override
  public void finishedReconciliation(HasMetadata resource, Map<String, Object> metadata) {
    delegate.finishedReconciliation(resource, metadata);
  }

  @Override
  public <T extends Map<?, ?>> T monitorSizeOf(T map, String name) {
    return delegate.monitorSizeOf(map, name);
  }
}
