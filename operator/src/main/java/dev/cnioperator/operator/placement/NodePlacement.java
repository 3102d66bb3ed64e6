package dev.cnioperator.operator.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which accepted networks one node holds: those its labels select, minus those that would clash
 * with an older one on the same network name or file name (CNI runtimes pick by either). A network
 * appended to another (spec.appendTo) is named after that network, so one network takes the plugins
 * of one CniNetwork only, and no CniNetwork appends to the network of another.
 */
public record NodePlacement(List<AcceptedRevision> placed, Map<String, Clash> blocked) {

  /** Decides the placement on a node with {@code labels} among {@code candidates}. */
  public static NodePlacement onNode(
      Map<String, String> labels, Collection<AcceptedRevision> candidates) {
    List<AcceptedRevision> ordered =
        candidates.stream()
            .filter(c -> LabelSelectors.matches(c.rendered().getNodeSelector(), labels))
            .sorted(AcceptedRevision.SENIORITY)
            .toList();
    Map<String, AcceptedRevision> networkNames = new HashMap<>();
    Map<String, String> fileNames = new HashMap<>();
    List<AcceptedRevision> placed = new ArrayList<>();
    Map<String, Clash> blocked = new LinkedHashMap<>();
    for (AcceptedRevision c : ordered) {
      AcceptedRevision byName = networkNames.get(c.networkName());
      String byFile = fileNames.get(c.fileName());
      if (byName != null) {
        blocked.put(c.resource(), nameClash(byName, c));
      } else if (byFile != null) {
        blocked.put(c.resource(), new Clash(byFile, "file name \"" + c.fileName() + "\""));
      } else {
        networkNames.put(c.networkName(), c);
        fileNames.put(c.fileName(), c.resource());
        placed.add(c);
      }
    }
    return new NodePlacement(List.copyOf(placed), Map.copyOf(blocked));
  }

  /**
   * {@code newer} declares the network name {@code holder} holds: as its own network's name, or,
   * with spec.appendTo, as the network it appends to; the note says which when either appends.
   */
  private static Clash nameClash(AcceptedRevision holder, AcceptedRevision newer) {
    String what = "network name \"" + newer.networkName() + "\"";
    if (holder.appended()) {
      String note =
          newer.appended() ? "it appends to that network too" : "it appends to that network";
      return new Clash(holder.resource(), what, note);
    }
    if (newer.appended()) {
      return new Clash(
          holder.resource(), what, "its own network; spec.appendTo names another product's");
    }
    return new Clash(holder.resource(), what);
  }

  /** Whether the network {@code resource} is placed on this node. */
  public boolean holds(String resource) {
    return placed.stream().anyMatch(p -> p.resource().equals(resource));
  }
}
