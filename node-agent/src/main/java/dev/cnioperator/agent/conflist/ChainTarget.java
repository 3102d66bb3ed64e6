package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * Finds another product's network in the runtime's configuration directory by its CNI name, the way
 * libcni's {@code LoadConfList(dir, name)} does: the {@code .conflist} files in byte order, the
 * first whose {@code name} matches; then the single-plugin {@code .conf} and {@code .json} files.
 * libcni gives up at the first file it cannot parse on the way, and so does this: a file being
 * written, or broken, before the target makes the agent unsure which file the runtime would take.
 */
public sealed interface ChainTarget {

  /** The network's file, parsed. */
  record Found(String fileName, ObjectNode list) implements ChainTarget {
    /** The cniVersion the runtime runs the file's chain with. */
    public String cniVersion() {
      JsonNode v = list.get("cniVersion");
      return v != null && v.isTextual() ? v.textValue() : null;
    }
  }

  /**
   * Not found, or not a file the agent may append to: nothing is edited. {@code passing} when it
   * may be a moment's state: a file that is not valid JSON may be half-written.
   */
  record Absent(String why, boolean passing) implements ChainTarget {
    Absent(String why) {
      this(why, false);
    }
  }

  /** Resolves {@code name} among {@code files} (file name to content) of the directory. */
  static ChainTarget resolve(String name, SortedMap<String, byte[]> files) {
    for (String fileName : files.keySet()) {
      if (!fileName.endsWith(".conflist")) {
        continue;
      }
      Optional<ObjectNode> list = Appended.parse(files.get(fileName));
      if (list.isEmpty()) {
        return new Absent(unsure(fileName, name), true);
      }
      if (name.equals(text(list.get(), "name"))) {
        return list.get().get("plugins") != null && list.get().get("plugins").isArray()
            ? new Found(fileName, list.get())
            : new Absent(fileName + " names network " + name + " but has no plugins list");
      }
    }
    for (Map.Entry<String, byte[]> f : files.entrySet()) {
      if (!List.of(".conf", ".json").stream().anyMatch(f.getKey()::endsWith)) {
        continue;
      }
      Optional<ObjectNode> conf = Appended.parse(f.getValue());
      if (conf.isEmpty()) {
        return new Absent(unsure(f.getKey(), name), true);
      }
      if (name.equals(text(conf.get(), "name"))) {
        return new Absent(
            "network "
                + name
                + " is the single-plugin file "
                + f.getKey()
                + ", which holds no chain to append to; not edited (its product would need to"
                + " write a .conflist)");
      }
    }
    return new Absent(
        "no configuration file of network "
            + name
            + " in the runtime's directory; waiting for its product to write one");
  }

  private static String unsure(String fileName, String name) {
    return fileName
        + " is not valid JSON (being written, or broken), and libcni stops there looking for"
        + " network "
        + name
        + "; nothing is edited until it is";
  }

  private static String text(ObjectNode o, String field) {
    JsonNode v = o.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }
}
