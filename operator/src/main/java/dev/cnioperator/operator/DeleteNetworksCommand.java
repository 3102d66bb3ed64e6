package dev.cnioperator.operator;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code cni-operator delete-networks}: deletes every CniNetwork and waits until they are gone. The
 * operator, still running, holds each one on its finalizer until the agents report the network's
 * conflist removed from every node, so when this returns the nodes no longer have the files; a node
 * whose agent does not answer within the operator's finalizer timeout keeps its file, and the
 * operator's {@code RemovalTimedOut} Event on the network names it. The chart runs this as a
 * pre-delete hook when {@code agent.removeConflistsOnUninstall} is true.
 */
@Command(
    name = "delete-networks",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes every CniNetwork and waits until the operator has removed their conflists from"
          + " the nodes and let them go.",
      "Exits 1 naming the networks still there when --timeout passes."
    })
public final class DeleteNetworksCommand implements Callable<Integer> {
  private static final Duration POLL = Duration.ofSeconds(2);

  /** Where {@code --kubeconfig}, given before the subcommand's name, is read. */
  @ParentCommand Main main;

  @Option(
      names = "--timeout",
      defaultValue = "${env:CNI_OPERATOR_DELETE_TIMEOUT:-5m}",
      converter = Main.DurationConverter.class,
      description =
          "How long to wait for the networks to go (env CNI_OPERATOR_DELETE_TIMEOUT; default:"
              + " ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    try (KubernetesClient client = OperatorClients.create(main.config())) {
      List<String> names = names(client);
      System.out.printf("event=delete-networks networks=%s%n", names);
      client.resources(CniNetwork.class).delete();
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!(names = names(client)).isEmpty()) {
        if (System.nanoTime() > deadline) {
          System.err.printf(
              "cni-operator delete-networks: after %s these CniNetworks are still there, their"
                  + " conflists maybe still on some nodes (kubectl describe cninetwork NAME says"
                  + " which): %s%n",
              timeout, names);
          return 1;
        }
        Thread.sleep(POLL.toMillis());
      }
      System.out.println("event=delete-networks-done");
      return 0;
    }
  }

  private static List<String> names(KubernetesClient client) {
    return client.resources(CniNetwork.class).list().getItems().stream()
        .map(n -> n.getMetadata().getName())
        .sorted()
        .toList();
  }
}
