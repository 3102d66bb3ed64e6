package dev.cnioperator.e2e.bench;

import dev.cnioperator.testkit.LocalControlPlane;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The floor of propagation: the least a program can do to carry one object's change to N nodes
 * through the API server, with no logic. {@code kubectl apply} of one ConfigMap (as a person
 * applies the CniNetwork); a writer watching it server-side-applies N per-node ConfigMaps one after
 * the other (as the operator writes N CniNode specs); N watchers, each with its own client and a
 * field selector on its own object (as each agent watches its own CniNode), receive the events. The
 * payload is the same conflist text. Done when the last watcher has its event.
 */
final class Floor implements AutoCloseable {
  static final String NAMESPACE = "bench-floor";
  private static final String SOURCE = "floor-network";

  private final LocalControlPlane controlPlane;
  private final List<String> nodes;
  private final List<KubernetesClient> clients = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();
  private final ExecutorService writer = Executors.newSingleThreadExecutor();
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private volatile String target = "";
  private volatile CountDownLatch arrived = new CountDownLatch(0);
  private volatile long lastWrite;

  private Floor(LocalControlPlane controlPlane, List<String> nodes) {
    this.controlPlane = controlPlane;
    this.nodes = List.copyOf(nodes);
  }

  static Floor start(LocalControlPlane cp, List<String> nodes) {
    Floor floor = new Floor(cp, nodes);
    KubernetesClient admin = cp.client();
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
    for (String node : nodes) {
      floor.write(admin, node, "0", "");
      KubernetesClient client =
          new KubernetesClientBuilder().withConfig(admin.getConfiguration()).build();
      floor.clients.add(client);
      floor.watches.add(
          client
              .configMaps()
              .inNamespace(NAMESPACE)
              .withField("metadata.name", node)
              .watch(floor.nodeWatcher(node)));
    }
    floor.watches.add(
        admin.configMaps().inNamespace(NAMESPACE).withName(SOURCE).watch(floor.sourceWatcher()));
    return floor;
  }

  /** One floor run, in millis from the start of kubectl apply. */
  record Run(double lastWrite, double total) {}

  /** Applies revision {@code revision} with {@code content}; when every node has it. */
  Run measure(String revision, String content) throws InterruptedException {
    seen.clear();
    target = revision;
    arrived = new CountDownLatch(nodes.size());
    String yaml =
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: %s, namespace: %s}
        data:
          revision: "%s"
          conflist: |
        %s
        """
            .formatted(SOURCE, NAMESPACE, revision, content.indent(4).stripTrailing());
    long t0 = System.nanoTime();
    controlPlane.kubectlWithInput(yaml, "apply", "-f", "-").orThrow("kubectl apply (floor)");
    if (!arrived.await(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("floor: " + arrived.getCount() + " nodes missed " + revision);
    }
    long done = System.nanoTime();
    // The last event can arrive before the last write's response.
    for (int i = 0; i < 10_000 && lastWrite - t0 < 0; i++) {
      Thread.sleep(1);
    }
    return new Run((lastWrite - t0) / 1e6, (done - t0) / 1e6);
  }

  private Watcher<ConfigMap> sourceWatcher() {
    return new QuietWatcher() {
      @Override
      public void eventReceived(Action action, ConfigMap cm) {
        if (action == Action.DELETED || cm.getData() == null) {
          return;
        }
        String revision = cm.getData().get("revision");
        String content = cm.getData().get("conflist");
        writer.execute(
            () -> {
              nodes.forEach(n -> write(controlPlane.client(), n, revision, content));
              lastWrite = System.nanoTime();
            });
      }
    };
  }

  private Watcher<ConfigMap> nodeWatcher(String node) {
    return new QuietWatcher() {
      @Override
      public void eventReceived(Action action, ConfigMap cm) {
        if (cm.getData() != null && target.equals(cm.getData().get("revision")) && seen.add(node)) {
          arrived.countDown();
        }
      }
    };
  }

  private void write(KubernetesClient client, String node, String revision, String content) {
    client
        .configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(node)
                .withNamespace(NAMESPACE)
                .endMetadata()
                .withData(Map.of("revision", revision, "conflist", content))
                .build())
        .fieldManager("floor")
        .forceConflicts()
        .serverSideApply();
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
    clients.forEach(KubernetesClient::close);
    writer.shutdownNow();
    // Gone before the next size's floor applies the namespace again: a namespace being terminated
    // refuses new objects ("unable to create new content ... because it is being terminated").
    var namespace = controlPlane.client().namespaces().withName(NAMESPACE);
    namespace.delete();
    namespace.waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
  }

  /** A watcher that ignores the watch closing, which only happens when the floor is closed. */
  private abstract static class QuietWatcher implements Watcher<ConfigMap> {
    @Override
    public void onClose(WatcherException cause) {}
  }
}
