package dev.cnioperator.operator.rollout;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetworkStatus;
import dev.cnioperator.api.v1alpha1.ProbeReport;
import dev.cnioperator.api.v1alpha1.ProbeResult;
import dev.cnioperator.api.v1alpha1.RenderedConfig;
import dev.cnioperator.api.v1alpha1.RolloutFailurePolicy;
import dev.cnioperator.api.v1alpha1.RolloutStatus;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;

/**
 * Nodes as the rollout sees them, for the machine's tests: what each CniNode spec holds (written as
 * {@link NodeRevisionChoice} says, as the Node reconciler will), and agents whose probe of a
 * revision passes or fails at once as {@code probe} says, or never reports ({@code silent}). Each
 * step reads the nodes from their CniNodes with the real {@link NodeProgressReader}.
 */
final class FakeCluster {
  private static final String NETWORK = "net";

  final Map<String, String> held = new TreeMap<>();
  final Map<String, List<String>> writes = new TreeMap<>();
  BiPredicate<String, String> probe = (node, revision) -> true;

  /** Nodes whose agent never reports (down): their probe stays pending. */
  final Set<String> silent = new TreeSet<>();

  RenderedConfig rendered;
  RolloutStatus status;
  Instant now = Instant.parse("2026-11-23T10:00:00Z");
  BatchSize batchSize = new BatchSize(1, "25%");
  RolloutFailurePolicy onFailure = RolloutFailurePolicy.Rollback;
  Duration pause = Duration.ZERO;
  Duration deadline = Duration.ofSeconds(600);
  RolloutMachine.Step lastStep;

  /** A cluster of {@code count} nodes node-00.. holding {@code revision} (null: nothing). */
  static FakeCluster of(int count, RenderedConfig revision) {
    FakeCluster cluster = new FakeCluster();
    for (int i = 0; i < count; i++) {
      cluster.held.put(
          String.format("node-%02d", i), revision == null ? null : revision.getSha256());
    }
    cluster.rendered = revision;
    return cluster;
  }

  static RenderedConfig revision(String name) {
    String sha = String.format("%64s", Integer.toHexString(name.hashCode())).replace(' ', '0');
    return new RenderedConfig().setSha256(sha).setContent("{\"name\":\"" + name + "\"}");
  }

  /** One reconcile of the network with {@code revision} accepted, then the Node reconciler. */
  RolloutStatus step(RenderedConfig revision) {
    String previousStable =
        status != null
            ? status.getStableRevision()
            : rendered == null ? null : rendered.getSha256();
    List<NodeProgress> nodes = new ArrayList<>();
    held.forEach(
        (node, h) ->
            nodes.add(
                NodeProgressReader.read(
                    node, cniNode(node, h), NETWORK, revision.getSha256(), previousStable)));
    lastStep =
        RolloutMachine.next(
            new RolloutMachine.Input(
                revision, rendered, status, batchSize, onFailure, pause, deadline, nodes, now));
    status = lastStep.status();
    rendered = revision;
    held.replaceAll((node, h) -> write(node, h, revision.getSha256()));
    return status;
  }

  /** The CniNode of {@code node}, whose spec holds {@code held} (null: nothing of the network). */
  private CniNode cniNode(String node, String held) {
    CniNode c = new CniNode();
    c.setMetadata(new ObjectMetaBuilder().withName(node).withGeneration(1L).build());
    if (held == null) {
      return c;
    }
    c.setSpec(
        new CniNodeSpec()
            .setNetworks(
                List.of(
                    new NodeNetwork()
                        .setName(NETWORK)
                        .setRevision(held)
                        .setSha256(held)
                        .setContent("{\"name\":\"" + NETWORK + "\"}"))));
    if (silent.contains(node)) {
      return c;
    }
    boolean passed = probe.test(node, held);
    ProbeReport report =
        new ProbeReport()
            .setSha256(held)
            .setResult(passed ? ProbeResult.Passed : ProbeResult.Failed)
            .setMessage(passed ? null : "ADD: plugin bridge: failed to set MTU 70000 on cni0");
    c.setStatus(
        new CniNodeStatus()
            .setObservedGeneration(1L)
            .setNetworks(
                List.of(
                    new NodeNetworkStatus()
                        .setName(NETWORK)
                        .setState(NetworkState.Applied)
                        .setAppliedSha256(held)
                        .setProbe(report))));
    return c;
  }

  private String write(String node, String held, String revision) {
    String target =
        NodeRevisionChoice.of(NodeRevisionChoice.Placing.of(status), node, held)
                == NodeRevisionChoice.Choice.REVISION
            ? revision
            : status.getStableRevision();
    if (!Objects.equals(target, held)) {
      writes.computeIfAbsent(node, n -> new ArrayList<>()).add(target);
    }
    return target;
  }

  /** Nodes holding {@code revision}. */
  List<String> holding(RenderedConfig revision) {
    return held.entrySet().stream()
        .filter(e -> revision.getSha256().equals(e.getValue()))
        .map(Map.Entry::getKey)
        .toList();
  }
}
