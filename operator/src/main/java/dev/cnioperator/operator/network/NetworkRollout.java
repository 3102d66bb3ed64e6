package dev.cnioperator.operator.network;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkDefaults;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.Rollout;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import dev.cnioperator.operator.rollout.BatchSize;
import dev.cnioperator.operator.rollout.NodeProgress;
import dev.cnioperator.operator.rollout.NodeProgressReader;
import dev.cnioperator.operator.rollout.RolloutMachine;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * The rollout step of one reconcile: reads every node the new revision goes to from its CniNode,
 * and steps the {@link RolloutMachine}.
 */
final class NetworkRollout {

  private NetworkRollout() {}

  /**
   * @param nodes the nodes the accepted revision is placed on and can be rendered for
   */
  static RolloutMachine.Step step(
      CniNetwork network,
      RenderedConfig accepted,
      List<String> nodes,
      Function<String, CniNode> cniNodes,
      Instant now) {
    String name = network.getMetadata().getName();
    RolloutStatus previous = network.getStatus() == null ? null : network.getStatus().getRollout();
    RenderedConfig previousRendered =
        network.getStatus() == null ? null : network.getStatus().getRendered();
    String stable =
        previous != null
            ? previous.getStableRevision()
            : previousRendered == null ? null : previousRendered.getSha256();
    List<NodeProgress> progress =
        nodes.stream()
            .sorted()
            .map(
                n ->
                    NodeProgressReader.read(
                        n, cniNodes.apply(n), name, accepted.getSha256(), stable))
            .toList();
    Rollout settings = network.getSpec() == null ? null : network.getSpec().getRollout();
    return RolloutMachine.next(
        new RolloutMachine.Input(
            accepted,
            previousRendered,
            previous,
            BatchSize.of(settings),
            settings == null || settings.getOnFailure() == null
                ? CniNetworkDefaults.ROLLOUT_ON_FAILURE
                : settings.getOnFailure(),
            Duration.ofSeconds(
                settings == null || settings.getPauseSeconds() == null
                    ? CniNetworkDefaults.ROLLOUT_PAUSE_SECONDS
                    : settings.getPauseSeconds()),
            Duration.ofSeconds(
                settings == null || settings.getProgressDeadlineSeconds() == null
                    ? CniNetworkDefaults.ROLLOUT_PROGRESS_DEADLINE_SECONDS
                    : settings.getProgressDeadlineSeconds()),
            progress,
            now));
  }
}
