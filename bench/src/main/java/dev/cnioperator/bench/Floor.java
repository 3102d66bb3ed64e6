package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNode;
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
import java.util.function.Consumer;

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
 *
 * <p>The per-node objects are ConfigMaps, or, for the custom-resource reporting floor, objects of
 * the CniNode's own schema holding a real node's spec and status ({@link CustomResourceNodes}).
 */
final class Floor implements AutoCloseable {
  private static final String SOURCE = "floor-network";

  /** Marks the per-node objects, so the reporting floor's collection watch sees only those. */
  private static final String NODE_LABEL = "bench.cnioperator.dev/floor-node";

  private final String namespace;
  private final boolean reporting;
  private final NodeObjects objects;
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
      LocalControlPlane controlPlane,
      List<String> nodes,
      String namespace,
      boolean reporting,
      NodeObjects objects) {
    this.controlPlane = controlPlane;
    this.nodes = List.copyOf(nodes);
    this.namespace = namespace;
    this.reporting = reporting;
    this.objects = objects;
  }

  /** The plain floor: a change carried to N nodes, nothing heard back. */
  static Floor start(LocalControlPlane cp, List<String> nodes) {
    return start(cp, nodes, "bench-floor", false, new ConfigMapNodes("bench-floor"));
  }

  /** The reporting floor: the same, and every node reports back (see the class comment). */
  static Floor startReporting(LocalControlPlane cp, List<String> nodes) {
    String namespace = "bench-floor-reporting";
    return start(cp, nodes, namespace, true, new ConfigMapNodes(namespace));
  }

  /**
   * The reporting floor with per-node objects of a custom resource shaped as a CniNode (the
   * CniNode's own schema under another group), each write and report holding what {@code
   * template}'s spec and status hold: what the product's two writes per node cost the API server,
   * with no logic beside them.
   */
  static Floor startReportingWithCustomResources(
      LocalControlPlane cp, List<String> nodes, CniNode template) {
    return start(
        cp, nodes, "bench-floor-crd", true, CustomResourceNodes.install(cp, template, NODE_LABEL));
  }

  private static Floor start(
      LocalControlPlane cp,
      List<String> nodes,
      String namespace,
      boolean reporting,
      NodeObjects objects) {
    Floor floor = new Floor(cp, nodes, namespace, reporting, objects);
    KubernetesClient admin = cp.client();
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
    for (String node : nodes) {
      objects.write(admin, node, "0", "");
      KubernetesClient client =
          new KubernetesClientBuilder().withConfig(admin.getConfiguration()).build();
      floor.clients.add(client);
      floor.watches.add(objects.watchOne(client, node, floor.nodeWatcher(node, client)));
    }
    floor.watches.add(
        admin.configMaps().inNamespace(namespace).withName(SOURCE).watch(floor.sourceWatcher()));
    if (reporting) {
      // Hears every write to the per-node objects, reports included; decodes them and does no more.
      floor.watches.add(objects.watchAll(admin));
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
    return new QuietWatcher<>() {
      @Override
      public void eventReceived(Action action, ConfigMap cm) {
        if (action == Action.DELETED || cm.getData() == null) {
          return;
        }
        String revision = cm.getData().get("revision");
        String content = cm.getData().get("conflist");
        writer.execute(
            () -> {
              nodes.forEach(n -> objects.write(controlPlane.client(), n, revision, content));
              lastWrite = System.nanoTime();
            });
      }
    };
  }

  /** What {@code node} does with each revision its watch delivers. */
  private Consumer<String> nodeWatcher(String node, KubernetesClient client) {
    return revision -> {
      if (target.equals(revision) && seen.add(node)) {
        arrived.countDown();
        if (reporting) {
          reporters.execute(() -> objects.report(client, node, revision));
        }
      }
    };
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
    clients.forEach(KubernetesClient::close);
    writer.shutdownNow();
    reporters.shutdownNow();
    objects.deleteAll(controlPlane.client());
    // Gone before the next size's floor applies the namespace again: a namespace being terminated
    // refuses new objects ("unable to create new content ... because it is being terminated").
    var ns = controlPlane.client().namespaces().withName(namespace);
    ns.delete();
    ns.waitUntilCondition(Objects::isNull, 2, TimeUnit.MINUTES);
  }

  /** A watcher that ignores the watch closing, which only happens when the floor is closed. */
  abstract static class QuietWatcher<T> implements Watcher<T> {
    @Override
    public void onClose(WatcherException cause) {}
  }

  /** The per-node objects a floor writes, watches and reports into. */
  interface NodeObjects {
    /** The writer's apply of {@code revision} with {@code content} into {@code node}'s object. */
    void write(KubernetesClient client, String node, String revision, String content);

    /** {@code node}'s report that it holds {@code revision}: its own field manager and fields. */
    void report(KubernetesClient client, String node, String revision);

    /** A watch of {@code node}'s object only (field selector), giving each event's revision. */
    Watch watchOne(KubernetesClient client, String node, Consumer<String> revisions);

    /** A watch of every node's object that decodes each event and does no more. */
    Watch watchAll(KubernetesClient client);

    /** Removes every node's object, once the floor is closed. */
    void deleteAll(KubernetesClient client);
  }

  /** Per-node ConfigMaps in the floor's namespace (which the floor deletes, and them with it). */
  private record ConfigMapNodes(String namespace) implements NodeObjects {
    @Override
    public void write(KubernetesClient client, String node, String revision, String content) {
      apply(client, node, Map.of("revision", revision, "conflist", content), "floor");
    }

    @Override
    public void report(KubernetesClient client, String node, String revision) {
      apply(client, node, Map.of("applied", revision), "floor-node");
    }

    @Override
    public Watch watchOne(KubernetesClient client, String node, Consumer<String> revisions) {
      return client
          .configMaps()
          .inNamespace(namespace)
          .withField("metadata.name", node)
          .watch(
              new QuietWatcher<ConfigMap>() {
                @Override
                public void eventReceived(Action action, ConfigMap cm) {
                  revisions.accept(cm.getData() == null ? null : cm.getData().get("revision"));
                }
              });
    }

    @Override
    public Watch watchAll(KubernetesClient client) {
      return client
          .configMaps()
          .inNamespace(namespace)
          .withLabel(NODE_LABEL)
          .watch(
              new QuietWatcher<ConfigMap>() {
                @Override
                public void eventReceived(Action action, ConfigMap cm) {}
              });
    }

    @Override
    public void deleteAll(KubernetesClient client) {}

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
  }
}
