package dev.cnioperator.operator.placement;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one network lands across the cluster: the nodes that hold it, and the nodes it selects but
 * that an older clashing network keeps it off (with the clash), both in node-name order.
 */
public record NetworkPlacement(List<String> holding, Map<String, Clash> clashes) {

  /** Decides, node by node, where {@code resource} lands among {@code candidates}. */
  public static NetworkPlacement across(
      Collection<Node> nodes, Collection<AcceptedRevision> candidates, String resource) {
    List<String> holding = new ArrayList<>();
    Map<String, Clash> clashes = new LinkedHashMap<>();
    nodes.stream()
        .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
        .forEach(
            node -> {
              String name = node.getMetadata().getName();
              NodePlacement placement =
                  NodePlacement.onNode(node.getMetadata().getLabels(), candidates);
              if (placement.holds(resource)) {
                holding.add(name);
              } else if (placement.blocked().containsKey(resource)) {
                clashes.put(name, placement.blocked().get(resource));
              }
            });
    return new NetworkPlacement(List.copyOf(holding), clashes);
  }
}
