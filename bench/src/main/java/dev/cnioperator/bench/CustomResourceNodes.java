package dev.cnioperator.bench;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.CniNodeStatus;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * A floor's per-node objects as custom resources shaped exactly as the product's CniNodes ({@link
 * FloorNode}: the chart's CniNode definition, its schema and validation rule, under another group).
 * The writer applies a spec holding what a real node's CniNode spec holds, with the floor's content
 * and revision in its network; each node reports with a status holding what that node's agent
 * reported, to the status subresource, as the agent does.
 */
final class CustomResourceNodes implements Floor.NodeObjects {
  private final CniNode template;
  private final String label;

  /**
   * Each revision's spec and status, built once: all N writes and N reports of a run carry the same
   * ones, and building them per node would put a JSON copy on the path being measured.
   */
  private final Map<String, CniNodeSpec> specs = new ConcurrentHashMap<>();

  private final Map<String, CniNodeStatus> statuses = new ConcurrentHashMap<>();

  private CustomResourceNodes(CniNode template, String label) {
    this.template = template;
    this.label = label;
  }

  /**
   * Defines FloorNode on {@code cp} (idempotent) and returns objects shaped as {@code template}.
   */
  static CustomResourceNodes install(LocalControlPlane cp, CniNode template, String label) {
    String crd;
    try {
      crd =
          Files.readString(
              ToolPaths.repoRoot()
                  .resolve("charts/cni-operator/crds/cninodes.cnioperator.dev.yaml"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String floorCrd =
        crd.replace("cninodes.cnioperator.dev", "floornodes." + FloorNode.GROUP)
            .replace("group: \"cnioperator.dev\"", "group: \"" + FloorNode.GROUP + "\"")
            .replace("kind: \"CniNode\"", "kind: \"FloorNode\"")
            .replace("plural: \"cninodes\"", "plural: \"floornodes\"")
            .replace("singular: \"cninode\"", "singular: \"floornode\"")
            .replace("- \"cninode\"", "- \"floornode\"")
            .replace("- \"cni\"", "- \"bench\"");
    cp.kubectlWithInput(floorCrd, "apply", "-f", "-").orThrow("kubectl apply the FloorNode CRD");
    cp.kubectl(
            "wait",
            "--for=condition=Established",
            "crd/floornodes." + FloorNode.GROUP,
            "--timeout=60s")
        .orThrow("FloorNode CRD established");
    return new CustomResourceNodes(template, label);
  }

  /** The floor's revisions are counters; a CniNode revision is 64 hex digits. */
  private static String hex(String revision) {
    return String.format(Locale.ROOT, "%064x", Long.parseLong(revision));
  }

  private FloorNode object(String node) {
    FloorNode o = new FloorNode();
    o.setMetadata(new ObjectMetaBuilder().withName(node).withLabels(Map.of(label, "true")).build());
    return o;
  }

  @Override
  public void write(KubernetesClient client, String node, String revision, String content) {
    FloorNode o = object(node);
    o.setSpec(
        specs.computeIfAbsent(
            revision,
            r -> {
              CniNodeSpec spec = copy(template.getSpec(), CniNodeSpec.class);
              NodeNetwork network = spec.getNetworks().get(0);
              network.setRevision(hex(r));
              network.setContent(content);
              return spec;
            }));
    client.resource(o).fieldManager("floor").forceConflicts().serverSideApply();
  }

  @Override
  public void report(KubernetesClient client, String node, String revision) {
    FloorNode o = object(node);
    o.setStatus(
        statuses.computeIfAbsent(
            revision,
            r -> {
              CniNodeStatus status = copy(template.getStatus(), CniNodeStatus.class);
              status.getNetworks().get(0).setAppliedSha256(hex(r));
              return status;
            }));
    client
        .resource(o)
        .subresource("status")
        .patch(
            new PatchContext.Builder()
                .withPatchType(PatchType.SERVER_SIDE_APPLY)
                .withFieldManager("floor-node")
                .withForce(true)
                .build());
  }

  @Override
  public Watch watchOne(KubernetesClient client, String node, Consumer<String> revisions) {
    return client
        .resources(FloorNode.class)
        .withField("metadata.name", node)
        .watch(
            new Floor.QuietWatcher<FloorNode>() {
              @Override
              public void eventReceived(Action action, FloorNode o) {
                String hex =
                    o.getSpec() == null ? null : o.getSpec().getNetworks().get(0).getRevision();
                revisions.accept(hex == null ? null : Long.toString(Long.parseLong(hex, 16)));
              }
            });
  }

  @Override
  public Watch watchAll(KubernetesClient client) {
    return client
        .resources(FloorNode.class)
        .withLabel(label)
        .watch(
            new Floor.QuietWatcher<FloorNode>() {
              @Override
              public void eventReceived(Action action, FloorNode o) {}
            });
  }

  @Override
  public void deleteAll(KubernetesClient client) {
    var all = client.resources(FloorNode.class).withLabel(label);
    all.delete();
    try {
      all.informOnCondition(List::isEmpty).get(2, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the floor's FloorNodes are not gone", e);
    }
  }

  private static <T> T copy(T value, Class<T> type) {
    return Serialization.unmarshal(Serialization.asJson(value), type);
  }
}
