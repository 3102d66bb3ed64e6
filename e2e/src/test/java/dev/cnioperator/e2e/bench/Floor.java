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
 *
 * <p>A <em>reporting</em> floor adds what the product must also do and the plain floor does not:
 * each node, on its event, writes a report back into its own object (server-side apply, its own
 * field manager and client, as each agent applies its CniNode status), and one watch of all the
 * per-node objects receives every write (as the operator's informer does, to hear the reports). It
 * is timed the same way, to the last node's event, with the reports competing for the machine.
 */
final class Floor implements AutoCloseable {
  private static final String SOURCE = "floor-network";

  /** Marks the per-node objects, so the reporting floor's collection watch sees only those. */
  private static final String NODE_LABEL = "bench.cnioperator.dev/floor-node";

  private final String namespace;
  private final boolean reporting;
  private final LocalControlPlane controlPlane;
  private final List<String> nodes;
  private final List<KubernetesClient> clients = new ArrayList<>();
  private final List<Watch> watches = new ArrayList<>();
  private final ExecutorService writer = Executors.newSingleThreadExecutor();

  /** The reporting floor's nodes write their reports from here, not from their watch's thread. */
  private final ExecutorService reporters = Executors.newFixedThreadPool(8);

  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private volatile String target = "";
  private volatile CountDownLatch arrived = new CountDownLatch(0);
  private volatile long lastWrite;

  private Floor(
      LocalControlPlane controlPlane, List<String> nodes, String namespace, boolean reporting) {
    this.controlPlane = controlPlane;
    this.nodes = List.copyOf(nodes);
    this.namespace = namespace;
    this.reporting = reporting;
  }

  /** The plain floor: a change carried to N nodes, nothing heard back. */
  static Floor start(LocalControlPlane cp, List<String> nodes) {
    return start(cp, nodes, "bench-floor", false);
  }

  /** The reporting floor: the same, and every node reports back (see the class comment). */
  static Floor startReporting(LocalControlPlane cp, List<String> nodes) {
    return start(cp, nodes, "bench-floor-reporting", true);
  }

  private static Floor start(
      LocalControlPlane cp, List<String> nodes, String namespace, boolean reporting) {
    Floor floor = new Floor(cp, nodes, namespace, reporting);
    KubernetesClient admin = cp.client();
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
    for (String node : nodes) {
      floor.write(admin, node, "0", "");
      KubernetesClient client =
          new KubernetesClientBuilder().withConfig(admin.getConfiguration()).build();
      floor.clients.add(client);
      floor.watches.add(
          client
              .configMaps()
              .inNamespace(namespace)
              .withField("metadata.name", node)
              .watch(floor.nodeWatcher(node, client)));
    }
    floor.watches.add(
        admin.configMaps().inNamespace(namespace).withName(SOURCE).watch(floor.sourceWatcher()));
    if (reporting) {
      // Hears every write to the per-node objects, reports included; decodes them and does no more.
      floor.watches.add(
          admin
              .configMaps()
              .inNamespace(namespace)
              .withLabel(NODE_LABEL)
              .watch(
                  new QuietWatcher() {
                    @Override
                    public void eventReceived(Action action, ConfigMap cm) {}
                  }));
    }
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
            .formatted(SOURCE, namespace, revision, content.indent(4).stripTrailing());
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

  private Watcher<ConfigMap> nodeWatcher(String node, KubernetesClient client) {
    return new QuietWatcher() {
      @Override
      public void eventReceived(Action action, ConfigMap cm) {
        String revision = cm.getData() == null ? null : cm.getData().get("revision");
        if (target.equals(revision) && seen.add(node)) {
          arrived.countDown();
          if (reporting) {
            reporters.execute(() -> report(client, node, revision));
          }
        }
      }
    };
  }

  /** A node's report of {@code revision}: one key of its own object, its own field manager. */
  private void report(KubernetesClient client, String node, String revision) {
    apply(client, node, Map.of("applied", revision), "floor-node");
  }

  private void write(KubernetesClient client, String node, String revision, String content) {
    apply(client, node, Map.of("revision", revision, "conflist", content), "floor");
  }

  /** Server-side apply of {@code data} into {@code node}'s object, owned by {@code manager}. */
  private void apply(
      KubernetesClient client, String node, Map<String, String> data, String manager) {
    client
        .configMaps()
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName(node)
                .withNamespace(namespace)
                .addToLabels(NODE_LABEL, "true")
                .endMetadata()
                .withData(data)
                .build())
        .fieldManager(manager)
        .forceConflicts()
        .serverSideApply();
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
    clients.forEach(KubernetesClient::close);
    writer.shutdownNow();
    reporters.shutdownNow();
    // Gone before the next size's floor applies the namespace again: a namespace being terminated
    // refuses new objects ("unable to create new content ... because it is being terminated").
    var ns = controlPlane.client().namespaces().withName(namespace);
    ns.delete();
    ns.waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
  }

  /** A watcher that ignores the watch closing, which only happens when the floor is closed. */
  private abstract static class QuietWatcher implements Watcher<ConfigMap> {
    @Override
    public void onClose(WatcherException cause) {}
  }
}
