package dev.cnioperator.operator.multus;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What to do about one Multus network's NetworkAttachmentDefinitions, from what exists: create the
 * missing ones, give back its config-less spec to one of its own someone edited, delete its own
 * where they no longer belong (a namespace no longer chosen, or an old name after a rename), and
 * never touch one it did not create.
 *
 * @param held namespaces that hold the network's own definition of its name already
 * @param create namespaces that get one
 * @param restore its own definitions that carry a spec.config someone wrote
 * @param delete its own definitions that no longer belong
 * @param conflicts definitions of its name, in chosen namespaces, that it did not create
 */
public record AttachmentDefinitionPlan(
    SortedSet<String> held,
    List<String> create,
    List<AttachmentDefinition> restore,
    List<AttachmentDefinition> delete,
    List<AttachmentDefinition> conflicts) {

  private static final Comparator<AttachmentDefinition> BY_ID =
      Comparator.comparing(AttachmentDefinition::id);

  /**
   * @param name the definitions' name (the network's CNI name), null when the network has none yet
   * @param uid the CniNetwork's uid
   * @param found every definition named {@code name} and every one labelled as the network's
   */
  public static AttachmentDefinitionPlan of(
      String name, String uid, ChosenNamespaces chosen, Collection<AttachmentDefinition> found) {
    Map<String, AttachmentDefinition> byId = new LinkedHashMap<>();
    found.forEach(d -> byId.putIfAbsent(d.id(), d));
    SortedSet<String> held = new TreeSet<>();
    List<AttachmentDefinition> restore = new ArrayList<>();
    List<AttachmentDefinition> delete = new ArrayList<>();
    List<AttachmentDefinition> conflicts = new ArrayList<>();
    SortedSet<String> taken = new TreeSet<>();
    for (AttachmentDefinition d : byId.values()) {
      boolean ours = d.ownedBy(uid);
      boolean belongs = d.name().equals(name) && chosen.namespaces().contains(d.namespace());
      if (ours && belongs) {
        held.add(d.namespace());
        if (d.configured()) {
          restore.add(d);
        }
      } else if (ours && d.name().equals(name) && chosen.keepsOthers()) {
        held.add(d.namespace());
      } else if (ours) {
        delete.add(d);
      } else if (belongs) {
        conflicts.add(d);
      }
      if (belongs) {
        taken.add(d.namespace());
      }
    }
    List<String> create =
        name == null
            ? List.of()
            : chosen.namespaces().stream().filter(n -> !taken.contains(n)).toList();
    restore.sort(BY_ID);
    delete.sort(BY_ID);
    conflicts.sort(BY_ID);
    return new AttachmentDefinitionPlan(held, create, restore, delete, conflicts);
  }
}
