package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where one propagation's time goes, seen through watches of an observer beside the product: when
 * the CniNetwork's status first holds the revision (the operator rendered it), when the first and
 * the last selected CniNode spec hold it (the operator's N writes), against the last conflist on
 * disk. The observer's watch events lag the writes a little, alike for every stage.
 */
final class PropagationStages implements AutoCloseable {
  private final String marker;
  private final int nodes;
  private final long t0;
  private final Set<String> specsSeen = ConcurrentHashMap.newKeySet();
  private final AtomicLong rendered = new AtomicLong();
  private final AtomicLong firstSpec = new AtomicLong();
  private final AtomicLong lastSpec = new AtomicLong();
  private final AtomicLong rolledOut = new AtomicLong();

  /** Each batch the rollout admitted: {first seen (nanos), its size}, in order. */
  private final List<long[]> batches = new ArrayList<>();

  private String lastBatch = "";
  private final List<Watch> watches;

  private PropagationStages(KubernetesClient client, BenchNetwork net, List<String> nodeNames) {
    this.marker = net.marker();
    this.nodes = nodeNames.size();
    Set<String> selected = Set.copyOf(nodeNames);
    this.t0 = System.nanoTime();
    Watch networkWatch =
        client
            .resources(CniNetwork.class)
            .withName(net.name())
            .watch(
                new Quiet<CniNetwork>() {
                  @Override
                  public void eventReceived(Action action, CniNetwork n) {
                    if (n.getStatus() != null
                        && n.getStatus().getRendered() != null
                        && String.valueOf(n.getStatus().getRendered().getContent())
                            .contains(marker)) {
                      long now = System.nanoTime();
                      rendered.compareAndSet(0, now);
                      rollout(n, now);
                    }
                  }
                });
    // From the collection's current resourceVersion: a watch without one first sends every
    // existing CniNode as an event, N objects the API server encodes and this JVM decodes while the
    // operator writes, a cost of the observer that is not the product's.
    String now =
        client
            .resources(CniNode.class)
            .list(new ListOptionsBuilder().withLimit(1L).build())
            .getMetadata()
            .getResourceVersion();
    Watch nodeWatch =
        client
            .resources(CniNode.class)
            .withResourceVersion(now)
            .watch(
                new Quiet<CniNode>() {
                  @Override
                  public void eventReceived(Action action, CniNode n) {
                    String name = n.getMetadata().getName();
                    if (selected.contains(name) && holds(n) && specsSeen.add(name)) {
                      long now = System.nanoTime();
                      firstSpec.compareAndSet(0, now);
                      if (specsSeen.size() == nodes) {
                        lastSpec.set(now);
                      }
                    }
                  }
                });
    this.watches = List.of(networkWatch, nodeWatch);
  }

  /** Notes a newly admitted batch and when the revision is rolled out on every node. */
  private synchronized void rollout(CniNetwork n, long now) {
    RolloutStatus r = n.getStatus().getRollout();
    String sha = n.getStatus().getRendered().getSha256();
    if (r == null || sha == null || !sha.equals(r.getRevision())) {
      return;
    }
    List<String> batch = r.getBatch() == null ? List.of() : r.getBatch();
    String key = String.join(",", batch);
    if (!batch.isEmpty() && !key.equals(lastBatch)) {
      lastBatch = key;
      batches.add(new long[] {now, batch.size()});
    }
    List<Condition> conditions = n.getStatus().getConditions();
    if (conditions != null
        && conditions.stream()
            .anyMatch(c -> "RolledOut".equals(c.getType()) && "True".equals(c.getStatus()))) {
      rolledOut.compareAndSet(0, now);
    }
  }

  /** Whether the CniNetwork said RolledOut for this revision. */
  boolean rolledOut() {
    return rolledOut.get() != 0;
  }

  /** Millis from the start to RolledOut (NaN: not yet). */
  double rolledOutMillis() {
    return since(rolledOut.get());
  }

  /** The admitted batches: {millis from the start when first seen, nodes in it}. */
  synchronized List<double[]> batches() {
    return batches.stream().map(b -> new double[] {since(b[0]), b[1]}).toList();
  }

  /** Starts observing; call just before the change is applied. */
  static PropagationStages observe(
      KubernetesClient client, BenchNetwork net, List<String> nodeNames) {
    return new PropagationStages(client, net, nodeNames);
  }

  private boolean holds(CniNode n) {
    if (n.getSpec() == null || n.getSpec().getNetworks() == null) {
      return false;
    }
    for (NodeNetwork network : n.getSpec().getNetworks()) {
      if (network.getContent() != null && network.getContent().contains(marker)) {
        return true;
      }
    }
    return false;
  }

  long startNanos() {
    return t0;
  }

  /** Millis from the start to the operator's rendering, first and last CniNode spec. */
  double[] millis() {
    return new double[] {since(rendered.get()), since(firstSpec.get()), since(lastSpec.get())};
  }

  private double since(long nanos) {
    return nanos == 0 ? Double.NaN : (nanos - t0) / 1e6;
  }

  @Override
  public String toString() {
    double[] m = millis();
    return String.format(
        Locale.ROOT, "rendered %.0f, first spec %.0f, last spec %.0f ms", m[0], m[1], m[2]);
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
  }

  /** Ignores the watch closing, which only happens when the observer is closed. */
  private abstract static class Quiet<T> implements Watcher<T> {
    @Override
    public void onClose(WatcherException cause) {}
  }
}
