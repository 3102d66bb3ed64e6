package dev.cnioperator.operator;

import dev.cnioperator.operator.network.CniNetworkReconciler;
import dev.cnioperator.operator.network.NetworkEvents;
import dev.cnioperator.operator.network.NetworkRenderer;
import dev.cnioperator.operator.network.NetworkStatusFolder;
import dev.cnioperator.operator.node.CniNodeWriter;
import dev.cnioperator.operator.node.NodeReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;

/** The operator wired by hand: both reconcilers on one JOSDK Operator, with metrics and a Lease. */
public final class CniOperator implements AutoCloseable {

  private final Operator operator;

  public CniOperator(KubernetesClient client, OperatorSettings settings, MeterRegistry registry) {
    OperatorMetrics metrics = new OperatorMetrics(registry);
    this.operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry))
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
                        null,
                        true));
              }
            });
    operator.register(
        new CniNetworkReconciler(
            new NetworkRenderer(),
            new NetworkStatusFolder(),
            new NetworkEvents(client),
            settings.finalizerTimeout(),
            Clock.systemUTC(),
            metrics));
    operator.register(new NodeReconciler(new CniNodeWriter(client, metrics)));
  }

  /** Starts the informers and, once leader (or at once without election), the reconcilers. */
  public void start() {
    operator.start();
  }

  /** Whether every informer is connected and synced. */
  public boolean isHealthy() {
    return operator.getRuntimeInfo().allEventSourcesAreHealthy();
  }

  /** Whether the controllers have started (false on a replica waiting for the Lease). */
  public boolean isStarted() {
    return operator.getRuntimeInfo().isStarted();
  }

  @Override
  public void close() {
    operator.stop();
  }
}
