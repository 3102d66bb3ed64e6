package dev.cnioperator.operator;

import dev.cnioperator.operator.taint.NodeTaints;
import dev.cnioperator.operator.taint.PodNetworkTaintSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code cni-operator remove-pod-network-taint}: takes the pod network taint off every node, once
 * the operator that keeps it is gone. The chart runs this as a post-delete hook, so that {@code
 * helm uninstall} leaves no node unschedulable: whatever the operator tainted (an agent restarting
 * at that moment is enough) and whatever a kubelet registered with the taint. It waits for the
 * operator's pods to be gone first, since a terminating operator could put the taint back.
 */
@Command(
    name = "remove-pod-network-taint",
    mixinStandardHelpOptions = true,
    description = {
      "Waits until no pod of --after-pods-gone is left in --namespace, then takes the pod network"
          + " taint off every node that carries it.",
      "Exits 1 naming the node when a taint could not be taken off."
    })
public final class RemoveTaintCommand implements Callable<Integer> {
  private static final Duration POLL = Duration.ofSeconds(1);

  /** Where {@code --kubeconfig} and {@code --namespace}, given before the subcommand, are read. */
  @ParentCommand Main main;

  @Option(
      names = "--key",
      defaultValue =
          "${env:CNI_OPERATOR_POD_NETWORK_TAINT_KEY:-cnioperator.dev/pod-network-not-ready}",
      description =
          "The taint's key; its effect is NoSchedule (env CNI_OPERATOR_POD_NETWORK_TAINT_KEY;"
              + " default: ${DEFAULT-VALUE}).")
  String key;

  @Option(
      names = "--after-pods-gone",
      defaultValue = "${env:CNI_OPERATOR_AFTER_PODS_GONE}",
      description =
          "Labels of the operator's pods in --namespace: wait until none is left, so that none"
              + " puts the taint back (env CNI_OPERATOR_AFTER_PODS_GONE; default: unset, no"
              + " wait).")
  String afterPodsGone;

  @Option(
      names = "--timeout",
      defaultValue = "${env:CNI_OPERATOR_AFTER_PODS_GONE_TIMEOUT:-2m}",
      converter = Main.DurationConverter.class,
      description =
          "How long to wait for those pods; after it the taint is taken off all the same, and"
              + " the pods still there are named (env CNI_OPERATOR_AFTER_PODS_GONE_TIMEOUT;"
              + " default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    // The key is checked as the operator checks it.
    PodNetworkTaintSettings.removed(key);
    try (KubernetesClient client = OperatorClients.create(main.config())) {
      if (afterPodsGone != null && !afterPodsGone.isBlank()) {
        awaitPodsGone(client);
      }
      List<String> nodes = NodeTaints.removeFromEveryNode(client, key);
      System.out.printf(
          "event=pod-network-taint-removed key=%s effect=%s nodes=%s%n",
          key, PodNetworkTaintSettings.EFFECT, nodes);
      return 0;
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      System.err.println("cni-operator remove-pod-network-taint: " + e.getMessage());
      return 1;
    }
  }

  private void awaitPodsGone(KubernetesClient client) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> left;
    while (!(left = pods(client)).isEmpty()) {
      if (System.nanoTime() > deadline) {
        // A taint left on is worse than one a stuck operator might put back: take it off, and say
        // which pods could still do that.
        System.err.printf(
            "cni-operator remove-pod-network-taint: after %s these pods (%s) are still in %s and"
                + " could put the taint back: %s%n",
            timeout, afterPodsGone, main.namespace, left);
        return;
      }
      Thread.sleep(POLL.toMillis());
    }
    System.out.printf("event=pods-gone namespace=%s selector=%s%n", main.namespace, afterPodsGone);
  }

  private List<String> pods(KubernetesClient client) {
    return client
        .pods()
        .inNamespace(main.namespace)
        .withLabelSelector(afterPodsGone)
        .list()
        .getItems()
        .stream()
        .map(Pod::getMetadata)
        .map(m -> m.getName())
        .sorted()
        .toList();
  }
}
