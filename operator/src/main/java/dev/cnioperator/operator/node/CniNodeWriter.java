package dev.cnioperator.operator.node;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.operator.metrics.OperatorMetrics;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a node's CniNode (same name, owned by the Node so it goes with it) with server-side apply,
 * and only when the stored spec or owner differs from the desired one.
 */
public final class CniNodeWriter {
  /** The field manager of everything the operator writes. */
  public static final String FIELD_MANAGER = "cni-operator";

  private static final Logger log = LoggerFactory.getLogger(CniNodeWriter.class);

  private final KubernetesClient client;
  private final OperatorMetrics metrics;

  public CniNodeWriter(KubernetesClient client, OperatorMetrics metrics) {
    this.client = client;
    this.metrics = metrics;
  }

  /** Makes the CniNode of {@code node} hold {@code desired}; returns whether it wrote. */
  public boolean write(Node node, CniNode existing, CniNodeSpec desired) {
    OwnerReference owner = ownerOf(node);
    if (existing != null
        && desired.equals(existing.getSpec())
        && existing.getMetadata().getOwnerReferences().contains(owner)) {
      return false;
    }
    CniNode applied = new CniNode();
    applied.setMetadata(
        new ObjectMetaBuilder()
            .withName(node.getMetadata().getName())
            .withLabels(Map.of("app.kubernetes.io/managed-by", FIELD_MANAGER))
            .withOwnerReferences(owner)
            .build());
    applied.setSpec(desired);
    client.resource(applied).fieldManager(FIELD_MANAGER).forceConflicts().serverSideApply();
    metrics.cniNodeWritten();
    log.info(
        "event=cninode-spec-written node={} networks={} plugins={} created={}",
        node.getMetadata().getName(),
        desired.getNetworks().stream().map(n -> n.getName()).toList(),
        desired.getPlugins().size(),
        existing == null);
    return true;
  }

  private static OwnerReference ownerOf(Node node) {
    return new OwnerReferenceBuilder()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(node.getMetadata().getName())
        .withUid(Objects.requireNonNull(node.getMetadata().getUid(), "node uid"))
        .withController(true)
        .withBlockOwnerDeletion(false)
        .build();
  }
}
