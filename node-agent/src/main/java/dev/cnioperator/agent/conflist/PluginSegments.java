package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A conflist's plugins as segments by owner: the one model of "whose entry is this" in a file more
 * than one party writes. In a file of the agent's own, its entries then those another installer
 * appended after them (a mesh's); in another product's file, that product's entries and those the
 * agent declared onto it ({@code spec.appendTo}). Entries are compared as JSON values ({@link
 * Appended#same}): an installer that re-marshals the file changes no entry.
 *
 * @param list the whole list the segments are of
 * @param owners the owner of each of its plugins, in file order
 */
public record PluginSegments(ObjectNode list, List<Owner> owners) {

  /** Who put a plugin entry in the file. */
  public enum Owner {
    /** The agent's own network, in its own file. */
    OWN,
    /** Another installer, after the agent's own entries in the agent's file. */
    APPENDED,
    /** The other product whose file it is. */
    PRODUCT,
    /** The agent, for a network declared onto the other product's ({@code spec.appendTo}). */
    DECLARED
  }

  public PluginSegments {
    owners = List.copyOf(owners);
  }

  /**
   * {@code file} as the agent's {@code own} list with entries appended: its own entries unchanged
   * and in order, every other top-level field unchanged, then what others appended. Empty when
   * {@code file} is not that (drift).
   */
  public static Optional<PluginSegments> ofOwn(ObjectNode own, ObjectNode file) {
    ArrayNode mine = plugins(own);
    ArrayNode theirs = plugins(file);
    if (mine == null
        || theirs == null
        || theirs.size() < mine.size()
        || !sameFieldsBesidesPlugins(own, file)) {
      return Optional.empty();
    }
    List<Owner> owners = new ArrayList<>();
    for (int i = 0; i < theirs.size(); i++) {
      if (i < mine.size() && !Appended.same(mine.get(i), theirs.get(i))) {
        return Optional.empty();
      }
      owners.add(i < mine.size() ? Owner.OWN : Owner.APPENDED);
    }
    return Optional.of(new PluginSegments(file, owners));
  }

  /**
   * Another product's {@code file} with entries the agent declared onto it: after the product's
   * first entry (its main plugin, never the agent's), each entry equal to one of {@code declared}
   * or of one of {@code declaredTypes} is the agent's, every other the product's. A list without
   * plugins has none of either.
   */
  public static PluginSegments ofTarget(
      ObjectNode file, List<JsonNode> declared, Set<String> declaredTypes) {
    ArrayNode plugins = plugins(file);
    List<Owner> owners = new ArrayList<>();
    for (int i = 0; plugins != null && i < plugins.size(); i++) {
      JsonNode entry = plugins.get(i);
      boolean ours =
          i >= 1
              && (declaredTypes.contains(entry.path("type").asText())
                  || declared.stream().anyMatch(d -> Appended.same(d, entry)));
      owners.add(ours ? Owner.DECLARED : Owner.PRODUCT);
    }
    return new PluginSegments(file, owners);
  }

  /** The entries {@code owner} put there, in file order. */
  public List<JsonNode> of(Owner owner) {
    List<JsonNode> out = new ArrayList<>();
    ArrayNode plugins = plugins(list);
    for (int i = 0; i < owners.size(); i++) {
      if (owners.get(i) == owner) {
        out.add(plugins.get(i));
      }
    }
    return out;
  }

  /** A copy of the list without the entries {@code owner} put there. */
  public ObjectNode without(Owner owner) {
    ObjectNode copy = list.deepCopy();
    ArrayNode plugins = plugins(copy);
    for (int i = owners.size() - 1; i >= 0; i--) {
      if (owners.get(i) == owner) {
        plugins.remove(i);
      }
    }
    return copy;
  }

  private static ArrayNode plugins(ObjectNode list) {
    JsonNode plugins = list.get("plugins");
    return plugins instanceof ArrayNode a ? a : null;
  }

  private static boolean sameFieldsBesidesPlugins(ObjectNode a, ObjectNode b) {
    if (a.size() != b.size()) {
      return false;
    }
    Iterator<Map.Entry<String, JsonNode>> fields = a.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (!f.getKey().equals("plugins") && !Appended.same(f.getValue(), b.get(f.getKey()))) {
        return false;
      }
    }
    return true;
  }
}
