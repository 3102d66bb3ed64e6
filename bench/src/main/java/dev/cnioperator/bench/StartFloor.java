package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The floor of an agent: a JVM from the agent's own jar that reads its CniNode once with the same
 * client and writes the first network's conflist atomically, then watches its CniNode until it is
 * killed (what any agent must go on doing). No binaries, no manifest, no status, no health server,
 * no metrics. Its start is the floor of start-up, its resident set once idle the floor of memory.
 * {@code StartFloor <kubeconfig> <node> <confDir>}.
 */
public final class StartFloor {
  /** The kubeconfig argument that means: configure in-cluster, as in a pod. */
  static final String IN_CLUSTER = "-";

  private StartFloor() {}

  public static void main(String[] args) throws Exception {
    Path confDir = Path.of(args[2]);
    Config config =
        args[0].equals(IN_CLUSTER)
            ? Config.autoConfigure(null)
            : Config.fromKubeconfig(Files.readString(Path.of(args[0])));
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
      CniNode node = client.resources(CniNode.class).withName(args[1]).get();
      NodeNetwork first = node.getSpec().getNetworks().get(0);
      Files.createDirectories(confDir);
      Path tmp =
          Files.writeString(confDir.resolve(".tmp-" + first.getFileName()), first.getContent());
      Files.move(tmp, confDir.resolve(first.getFileName()), StandardCopyOption.ATOMIC_MOVE);
      try (Watch watch =
          client
              .resources(CniNode.class)
              .withName(args[1])
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, CniNode resource) {}

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        Thread.sleep(Long.MAX_VALUE);
      }
    }
  }
}
