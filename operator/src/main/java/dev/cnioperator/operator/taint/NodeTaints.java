package dev.cnioperator.operator.taint;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The pod network taint in a Node's list, changed by JSON patches that first test the Node's
 * resourceVersion: a taint another component adds or removes at the same moment is never lost, the
 * patch failing with a conflict instead, to be made again from the Node as it is now.
 */
public final class NodeTaints {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How many times a removal reads a Node again after a conflict before it gives up. */
  private static final int ATTEMPTS = 5;

  private NodeTaints() {}

  /** Where the node's taint of {@code key} with the effect NoSchedule is in its list, or -1. */
  static int indexOf(Node node, String key) {
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    if (taints == null) {
      return -1;
    }
    for (int i = 0; i < taints.size(); i++) {
      if (key.equals(taints.get(i).getKey())
          && PodNetworkTaintSettings.EFFECT.equals(taints.get(i).getEffect())) {
        return i;
      }
    }
    return -1;
  }

  /** A patch that applies only to the node as it was read. */
  static ArrayNode testingVersion(Node node) {
    ArrayNode patch = JSON.createArrayNode();
    patch
        .addObject()
        .put("op", "test")
        .put("path", "/metadata/resourceVersion")
        .put("value", node.getMetadata().getResourceVersion());
    return patch;
  }

  static void add(ArrayNode patch, Node node, String key) {
    Taint taint = new Taint(PodNetworkTaintSettings.EFFECT, key, null, null);
    // The API server leaves an empty list out, so "/spec/taints/-" would have nothing to add to.
    boolean none =
        node.getSpec() == null
            || node.getSpec().getTaints() == null
            || node.getSpec().getTaints().isEmpty();
    patch
        .addObject()
        .put("op", "add")
        .put("path", none ? "/spec/taints" : "/spec/taints/-")
        .set("value", JSON.valueToTree(none ? List.of(taint) : taint));
  }

  static void remove(ArrayNode patch, int index) {
    patch.addObject().put("op", "remove").put("path", "/spec/taints/" + index);
  }

  /**
   * Takes the taint of {@code key} (effect NoSchedule) off every node that carries it, each Node
   * read again after a conflict. Returns the nodes it was taken off, sorted.
   *
   * @throws KubernetesClientException when a node's taint could not be taken off (its message names
   *     the node)
   */
  public static List<String> removeFromEveryNode(KubernetesClient client, String key) {
    List<String> removed = new ArrayList<>();
    for (Node listed : client.nodes().list().getItems()) {
      String name = listed.getMetadata().getName();
      Node node = listed;
      for (int attempt = 1; node != null; attempt++) {
        int index = indexOf(node, key);
        if (index < 0) {
          break;
        }
        ArrayNode patch = testingVersion(node);
        remove(patch, index);
        try {
          patch(client, name, patch);
          removed.add(name);
          break;
        } catch (KubernetesClientException e) {
          // 409, or 422 from the failed resourceVersion test: the Node changed since it was read.
          if ((e.getCode() != 409 && e.getCode() != 422) || attempt == ATTEMPTS) {
            throw new KubernetesClientException(
                "could not take " + key + " off node " + name + ": " + e.getMessage(), e);
          }
          node = client.nodes().withName(name).get();
        }
      }
    }
    Collections.sort(removed);
    return removed;
  }

  static void patch(KubernetesClient client, String node, ArrayNode patch) {
    try {
      client
          .nodes()
          .withName(node)
          .patch(PatchContext.of(PatchType.JSON), JSON.writeValueAsString(patch));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
