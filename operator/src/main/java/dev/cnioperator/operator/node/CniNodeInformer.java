package dev.cnioperator.operator.node;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.runtime.watch.InformerRetry;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.api.config.ConfigurationService;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The operator's one informer of every CniNode, shared by its two controllers: the node controller
 * reads the specs it wrote, the network controller the agents' reports. With an informer each
 * (JOSDK 5.2 keeps one per event source), the API server sent every CniNode write to the operator
 * twice and the operator decoded it twice. Each controller gets a {@link CniNodeEventSource} over
 * this informer instead; it starts with the first of them and stops with the last.
 */
public final class CniNodeInformer {
  private final KubernetesClient client;
  private final ConfigurationService configuration;

  // Guarded by this.
  private SharedIndexInformer<CniNode> informer;
  private int users;

  /**
   * Started as JOSDK starts its informers under {@code configuration}: a start waits for the first
   * list up to its cache sync timeout; once synced, a broken watch is retried as JOSDK's own
   * informers retry ({@link InformerRetry}), and an informer that stops all the same (on objects it
   * cannot decode) goes to its informer-stopped handler (which ends the process by default, so the
   * pod restarts).
   */
  public CniNodeInformer(KubernetesClient client, ConfigurationService configuration) {
    this.client = client;
    this.configuration = configuration;
  }

  /** The informer, started and synced; each call is matched by one {@link #release()}. */
  synchronized SharedIndexInformer<CniNode> acquire() {
    if (users == 0) {
      SharedIndexInformer<CniNode> started = client.resources(CniNode.class).runnableInformer(0);
      started.exceptionHandler(InformerRetry.AFTER_START);
      configuration
          .getInformerStoppedHandler()
          .ifPresent(
              handler ->
                  started
                      .stopped()
                      .whenComplete((ignored, error) -> handler.onStop(started, error)));
      Duration syncTimeout = configuration.cacheSyncTimeout();
      try {
        started.start().toCompletableFuture().get(syncTimeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException e) {
        started.stop();
        throw new OperatorException(
            "the CniNode informer did not list CniNodes within " + syncTimeout.toSeconds() + "s",
            e);
      } catch (InterruptedException e) {
        started.stop();
        Thread.currentThread().interrupt();
        throw new OperatorException("interrupted while the CniNode informer started", e);
      }
      informer = started;
    }
    users++;
    return informer;
  }

  /** Stops the informer when its last user lets it go; a later acquire starts a new one. */
  synchronized void release() {
    if (users > 0 && --users == 0) {
      informer.stop();
      informer = null;
    }
  }
}
