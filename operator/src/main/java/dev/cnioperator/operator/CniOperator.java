package dev.cnioperator.operator;

import dev.cnioperator.operator.devices.NetworkPublication;
import dev.cnioperator.operator.events.ClusterEvents;
import dev.cnioperator.operator.liveness.LoopLiveness;
import dev.cnioperator.operator.liveness.RunningReconciles;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import dev.cnioperator.operator.multus.AttachmentDefinitions;
import dev.cnioperator.operator.network.CniNetworkReconciler;
import dev.cnioperator.operator.network.NetworkRenderer;
import dev.cnioperator.operator.network.NetworkStatusFolder;
import dev.cnioperator.operator.node.CniNodeInformer;
import dev.cnioperator.operator.node.CniNodeWriter;
import dev.cnioperator.operator.node.NodeReconciler;
import dev.cnioperator.operator.taint.PodNetworkTaintReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator wired by hand: both reconcilers on one JOSDK Operator, with metrics, a Lease and the
 * liveness of its reconcile loop.
 */
public final class CniOperator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CniOperator.class);

  private final Operator operator;
  private final KubernetesClient client;
  private final OperatorSettings settings;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final AtomicBoolean leading = new AtomicBoolean();
  private final LoopLiveness liveness;

  public CniOperator(KubernetesClient client, OperatorSettings settings, MeterRegistry registry) {
    this.client = client;
    this.settings = settings;
    Clock clock = Clock.systemUTC();
    OperatorMetrics metrics = new OperatorMetrics(registry, leading::get);
    RunningReconciles running =
        new RunningReconciles(MicrometerMetrics.withoutPerResourceMetrics(registry), clock);
    this.operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  .withMetrics(running)
                  .withUseSSAToPatchPrimaryResource(true);
              if (settings.leaderElection()) {
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        OperatorSettings.LEASE_NAME,
                        settings.namespace(),
                        settings.lease().leaseDuration(),
                        settings.lease().renewDeadline(),
                        settings.lease().retryPeriod(),
                        settings.identity(),
                        new LeaderCallbacks(() -> leading.set(true), this::lostLease, leader -> {}),
                        // JOSDK 5.2 would exit here on a graceful stop too, before the Lease is
                        // released; lostLease exits only when the Lease was lost.
                        false));
              }
            });
    CniNodeInformer cniNodes = new CniNodeInformer(client, operator.getConfigurationService());
    ClusterEvents events = new ClusterEvents(client, clock);
    operator.register(
        new CniNetworkReconciler(
            new NetworkRenderer(),
            new NetworkStatusFolder(),
            events,
            settings.finalizerTimeout(),
            clock,
            metrics,
            cniNodes,
            new AttachmentDefinitions(client, clock),
            new NetworkPublication(client, clock, events)));
    operator.register(new NodeReconciler(new CniNodeWriter(client, metrics), cniNodes));
    if (settings.podNetworkTaint() != null) {
      operator.register(
          new PodNetworkTaintReconciler(client, settings.podNetworkTaint(), cniNodes, events));
    }
    this.liveness =
        new LoopLiveness(
            settings.liveness(),
            settings.leaderElection(),
            new LoopLiveness.Loop() {
              @Override
              public boolean leading() {
                return leading.get();
              }

              @Override
              public Optional<RunningReconciles.Running> oldestReconcile() {
                return running.oldest();
              }

              @Override
              public List<String> unhealthySources() {
                return CniOperator.this.unhealthySources();
              }
            },
            clock);
  }

  /** Starts the informers and, once leader (or at once without election), the reconcilers. */
  public void start() {
    operator.start();
    if (!settings.leaderElection()) {
      leading.set(true);
    }
  }

  /** Empty while every informer is connected and synced, else which are not (controller/source). */
  public Optional<String> notReady() {
    List<String> unhealthy = unhealthySources();
    return unhealthy.isEmpty()
        ? Optional.empty()
        : Optional.of("event sources not healthy: " + String.join(", ", unhealthy));
  }

  /** Empty while the reconcile loop works, else why it is stuck (see {@link LoopLiveness}). */
  public Optional<String> notLive() {
    return liveness.notLive();
  }

  private List<String> unhealthySources() {
    return operator.getRuntimeInfo().unhealthyEventSources().entrySet().stream()
        .flatMap(c -> c.getValue().keySet().stream().map(source -> c.getKey() + "/" + source))
        .sorted()
        .toList();
  }

  /**
   * Losing the Lease without being asked to stop ends the process, so that two replicas never
   * reconcile at once; the pod restarts as a standby.
   */
  private void lostLease() {
    leading.set(false);
    if (!stopping.get()) {
      LOG.error("event=lease-lost identity={} exiting=true", settings.identity());
      System.exit(1);
    }
  }

  /** Stops the reconcilers and informers, then gives up the Lease if this replica holds it. */
  @Override
  public void close() {
    stopping.set(true);
    leading.set(false);
    operator.stop();
    if (settings.leaderElection()) {
      LeaseRelease.release(
          client,
          settings.namespace(),
          OperatorSettings.LEASE_NAME,
          settings.identity(),
          Clock.systemUTC());
    }
  }
}
