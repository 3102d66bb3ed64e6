package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * What one write costs the API server and etcd: a CniNode's spec and status as the product writes
 * them (server-side apply of a real node's CniNode, taken from the product converged on one node),
 * against a ConfigMap holding the same JSON, the object the propagation floor writes. Each kind
 * writes one object, alternating between two contents so that every write changes it; kinds take
 * turns, round by round, with nothing else writing (the operator and the agent are stopped). CPU is
 * the kernel's accounting of each process ({@link CpuByPart}).
 *
 * <p>{@code e2e/bin/bench writecost [writes per round] [rounds]} (defaults: 300, 5)
 */
public final class WriteCostBench {
  private static final String NAMESPACE = "default";
  private static final PatchContext APPLY =
      new PatchContext.Builder()
          .withPatchType(PatchType.SERVER_SIDE_APPLY)
          .withFieldManager("bench-writecost")
          .withForce(true)
          .build();

  /** The benchmark group of the one node, and the name of its network. */
  private static final String GROUP = "writecost";

  public static void main(String[] args) throws Exception {
    BenchReport.exitOnFailure();
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    int writes = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Map<String, Samples> apiServer = new LinkedHashMap<>();
    Map<String, Samples> etcd = new LinkedHashMap<>();
    CniNode real;
    try (BenchCluster cluster = BenchCluster.start("writecost")) {
      real = convergedCniNode(cluster);
      cluster.operator().stop();
      KubernetesClient client = cluster.controlPlane().client();
      Map<String, IntConsumer> kinds = kinds(client, real);
      CpuByPart cpu = CpuByPart.controlPlane();
      for (int round = 0; round < rounds; round++) {
        for (var kind : kinds.entrySet()) {
          Map<String, Double> before = cpu.now();
          for (int k = 0; k < writes; k++) {
            kind.getValue().accept(k % 2);
          }
          Map<String, Double> after = cpu.now();
          double perWrite = 1.0 / writes;
          apiServer
              .computeIfAbsent(kind.getKey(), x -> new Samples())
              .add((after.get(CpuByPart.API_SERVER) - before.get(CpuByPart.API_SERVER)) * perWrite);
          etcd.computeIfAbsent(kind.getKey(), x -> new Samples())
              .add((after.get(CpuByPart.ETCD) - before.get(CpuByPart.ETCD)) * perWrite);
        }
        System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, rounds);
      }
    } finally {
      // What the agent's probe and CHECK of the network (named as its group) made on the host.
      BenchCluster.deleteSharedBridgeAndReservations(GROUP);
    }
    report(writes, rounds, real, apiServer, etcd);
    System.exit(0);
  }

  /** The CniNode of one node the product has converged, with the product's defaults. */
  private static CniNode convergedCniNode(BenchCluster cluster) throws Exception {
    String group = GROUP;
    BenchNetwork net = BenchNetwork.withProductDefaults("writecost", group);
    try (InProcessAgents agents = InProcessAgents.start(cluster, group, 1)) {
      cluster.applyAndAwaitReady(agents, net);
      return cluster
          .controlPlane()
          .client()
          .resources(CniNode.class)
          .withName(agents.nodes().get(0))
          .get();
    }
  }

  /**
   * The four kinds of write, each given which of its two contents to write: the CniNode's spec (the
   * operator's apply) and status (the agent's), and a ConfigMap with the JSON of each.
   */
  private static Map<String, IntConsumer> kinds(KubernetesClient client, CniNode real) {
    List<CniNode> specs = new ArrayList<>();
    List<CniNode> statuses = new ArrayList<>();
    List<ConfigMap> specMaps = new ArrayList<>();
    List<ConfigMap> statusMaps = new ArrayList<>();
    for (int v = 0; v < 2; v++) {
      CniNode spec = new CniNode();
      spec.setMetadata(new ObjectMetaBuilder().withName("writecost-copy").build());
      spec.setSpec(copy(real).getSpec());
      String revision = spec.getSpec().getNetworks().get(0).getRevision();
      spec.getSpec().getNetworks().get(0).setRevision(revision.substring(0, 63) + v);
      specs.add(spec);
      CniNode status = new CniNode();
      status.setMetadata(new ObjectMetaBuilder().withName("writecost-copy").build());
      CniNodeStatus s = copy(real).getStatus();
      s.setObservedGeneration((long) v);
      status.setStatus(s);
      statuses.add(status);
      specMaps.add(configMap("writecost-spec", Serialization.asJson(spec.getSpec())));
      statusMaps.add(configMap("writecost-status", Serialization.asJson(s)));
    }
    Map<String, IntConsumer> kinds = new LinkedHashMap<>();
    kinds.put("CniNode spec (apply)", v -> apply(client, specs.get(v)));
    kinds.put("CniNode status (apply to /status)", v -> applyStatus(client, statuses.get(v)));
    kinds.put("ConfigMap, the spec's JSON (apply)", v -> apply(client, specMaps.get(v)));
    kinds.put("ConfigMap, the status's JSON (apply)", v -> apply(client, statusMaps.get(v)));
    // The objects exist before the first measured write: a create costs more than an update.
    kinds.values().forEach(k -> k.accept(1));
    return kinds;
  }

  private static CniNode copy(CniNode node) {
    return Serialization.unmarshal(Serialization.asJson(node), CniNode.class);
  }

  private static ConfigMap configMap(String name, String json) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withData(Map.of("content", json))
        .build();
  }

  private static void apply(KubernetesClient client, HasMetadata object) {
    client.resource(object).patch(APPLY);
  }

  private static void applyStatus(KubernetesClient client, CniNode object) {
    client.resource(object).subresource("status").patch(APPLY);
  }

  private static void report(
      int writes,
      int rounds,
      CniNode real,
      Map<String, Samples> apiServer,
      Map<String, Samples> etcd) {
    BenchReport report =
        new BenchReport(
            "writecost",
            "CPU per write: a CniNode's spec and status against a ConfigMap of the same JSON");
    BenchReport.Table table =
        report.table(
            "write",
            "API server per write (median)",
            "min–max of rounds",
            "etcd per write (median)",
            "API server against the ConfigMap of the same JSON");
    double specMap = apiServer.get("ConfigMap, the spec's JSON (apply)").median();
    double statusMap = apiServer.get("ConfigMap, the status's JSON (apply)").median();
    for (String kind : apiServer.keySet()) {
      Samples a = apiServer.get(kind);
      double against = kind.contains("spec") ? specMap : statusMap;
      table.row(
          kind,
          String.format(Locale.ROOT, "%.2f ms", a.median()),
          String.format(Locale.ROOT, "%.2f–%.2f ms", a.min(), a.max()),
          String.format(Locale.ROOT, "%.2f ms", etcd.get(kind).median()),
          BenchReport.ratio(a.median() / against));
    }
    table.end();
    report.note(
        String.format(
            Locale.ROOT,
            "%d rounds of %d writes of each kind, kinds in turn; the CniNode is node %s's after"
                + " the product converged (%d bytes of spec JSON, %d of status JSON).",
            rounds,
            writes,
            real.getMetadata().getName(),
            Serialization.asJson(real.getSpec()).length(),
            Serialization.asJson(real.getStatus()).length()));
    report.write();
  }
}
