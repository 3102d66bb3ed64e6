package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.io.CniJson;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How libcni 1.3 finds a network by its CNI name in a configuration directory ({@code
 * LoadConfList}, which containerd's and CRI-O's lookups and {@code cnitool} share) and which chain
 * it runs for it: the {@code .conflist} files in file-name order, each loaded with the plugin files
 * of its drop-in directory, the first whose {@code name} matches; then the single-plugin {@code
 * .conf} and {@code .json} files, in file-name order. The first file it cannot load on the way
 * stops the search, whichever network it holds.
 *
 * <p>A list's drop-in directory is {@code <dir>/<the list's name>/}: every {@code .conf} file there
 * (dot-files too, not recursively), in file-name order, is one plugin appended after the list's
 * own, unless the list sets {@code loadOnlyInlinedPlugins}. A single-plugin file gets none.
 *
 * <p>Pure: it judges a {@link Directory} read before, so a caller decides on one snapshot of the
 * node. It checks what deciding where a network is needs (JSON objects, the order, the drop-ins);
 * {@link LibcniConfigFile} says whether libcni accepts a file's every field. {@code
 * LibcniNetworksIT} holds it against libcni's own {@code cnitool} 1.3.0.
 */
public final class LibcniNetworks {
  private LibcniNetworks() {}

  /**
   * A configuration directory, read: its top-level files by name, and the files of each of its
   * sub-directories, by the sub-directory's name, then the file's (only {@code .conf} files are
   * drop-ins; the others may be left out).
   */
  public record Directory(
      SortedMap<String, byte[]> files, Map<String, SortedMap<String, byte[]>> dropIns) {
    public Directory {
      files = ordered(files);
      Map<String, SortedMap<String, byte[]>> sorted = new TreeMap<>();
      dropIns.forEach((dir, in) -> sorted.put(dir, ordered(in)));
      dropIns = Map.copyOf(sorted);
    }

    /** A directory with no sub-directories. */
    public Directory(SortedMap<String, byte[]> files) {
      this(files, Map.of());
    }

    private SortedMap<String, byte[]> dropInsOf(String name) {
      return dropIns.getOrDefault(name, new TreeMap<>());
    }
  }

  /** What a lookup of a network name found. */
  public sealed interface Lookup {
    /** One method per kind: a new kind does not compile until every reader handles it. */
    interface Visitor<R> {
      R found(Found found);

      R singlePlugin(SinglePlugin single);

      R stopped(Stopped stopped);

      R notFound(NotFound notFound);
    }

    <R> R accept(Visitor<R> visitor);
  }

  /**
   * The network is the list in {@code fileName}.
   *
   * @param dropIns the plugin files of its drop-in directory that libcni appends, in order, by
   *     name; none when the list sets {@code loadOnlyInlinedPlugins}
   */
  public record Found(String fileName, ObjectNode list, SortedMap<String, ObjectNode> dropIns)
      implements Lookup {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.found(this);
    }

    /** The cniVersion the runtime runs the chain with. */
    public String cniVersion() {
      return text(list, "cniVersion");
    }

    /** The list as the runtime runs it: its own plugins, then the drop-ins. */
    public ObjectNode chain() {
      return chain(list);
    }

    /**
     * What the runtime runs once the network's file holds {@code file} (its list edited): the
     * file's plugins, then the same drop-ins.
     */
    public ObjectNode chain(ObjectNode file) {
      ObjectNode chain = file.deepCopy();
      ArrayNode plugins = chain.withArray("plugins");
      dropIns.values().forEach(p -> plugins.add(p.deepCopy()));
      return chain;
    }
  }

  /** The network is the single-plugin file {@code fileName}, which takes no drop-ins. */
  public record SinglePlugin(String fileName, ObjectNode conf) implements Lookup {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.singlePlugin(this);
    }
  }

  /**
   * libcni stops at {@code fileName} (a top-level file, or {@code <network>/<file>} of a drop-in
   * directory), which is not a JSON object: being written, or broken. Whether the network is after
   * it cannot be told.
   */
  public record Stopped(String fileName) implements Lookup {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.stopped(this);
    }
  }

  /** No file of the directory holds the network. */
  public record NotFound() implements Lookup {
    @Override
    public <R> R accept(Visitor<R> visitor) {
      return visitor.notFound(this);
    }
  }

  /** Finds network {@code name} in {@code dir} as libcni does. */
  public static Lookup find(String name, Directory dir) {
    for (String fileName : searchOrder(dir.files().keySet())) {
      if (!isList(fileName)) {
        continue;
      }
      Optional<ObjectNode> list = CniJson.object(dir.files().get(fileName));
      if (list.isEmpty()) {
        return new Stopped(fileName);
      }
      String listName = text(list.get(), "name");
      SortedMap<String, ObjectNode> dropIns = new TreeMap<>(JsonText::compareCodePoints);
      if (listName != null && !list.get().path("loadOnlyInlinedPlugins").asBoolean(false)) {
        for (Map.Entry<String, byte[]> f : dir.dropInsOf(listName).entrySet()) {
          if (!isDropIn(f.getKey())) {
            continue;
          }
          Optional<ObjectNode> plugin = CniJson.object(f.getValue());
          if (plugin.isEmpty()) {
            return new Stopped(listName + "/" + f.getKey());
          }
          dropIns.put(f.getKey(), plugin.get());
        }
      }
      if (name.equals(listName)) {
        return new Found(fileName, list.get(), dropIns);
      }
    }
    for (String fileName : searchOrder(dir.files().keySet())) {
      if (isList(fileName)) {
        continue;
      }
      Optional<ObjectNode> conf = CniJson.object(dir.files().get(fileName));
      if (conf.isEmpty()) {
        return new Stopped(fileName);
      }
      if (name.equals(text(conf.get(), "name"))) {
        return new SinglePlugin(fileName, conf.get());
      }
    }
    return new NotFound();
  }

  /**
   * The configuration files among {@code names} in the order libcni searches them: {@code
   * .conflist} files by name (Go's byte order), then {@code .conf} and {@code .json} files by name.
   */
  public static List<String> searchOrder(Collection<String> names) {
    List<String> lists = new ArrayList<>();
    List<String> single = new ArrayList<>();
    for (String n : names) {
      String ext = LibcniConfigFile.extension(n);
      if (ext.equals(".conflist")) {
        lists.add(n);
      } else if (ext.equals(".conf") || ext.equals(".json")) {
        single.add(n);
      }
    }
    lists.sort(JsonText::compareCodePoints);
    single.sort(JsonText::compareCodePoints);
    lists.addAll(single);
    return lists;
  }

  /** Whether libcni reads {@code fileName} of a drop-in directory: a {@code .conf} file. */
  public static boolean isDropIn(String fileName) {
    return LibcniConfigFile.extension(fileName).equals(".conf");
  }

  private static boolean isList(String fileName) {
    return LibcniConfigFile.extension(fileName).equals(".conflist");
  }

  private static SortedMap<String, byte[]> ordered(SortedMap<String, byte[]> files) {
    SortedMap<String, byte[]> out = new TreeMap<>(JsonText::compareCodePoints);
    out.putAll(files);
    return out;
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    return v != null && v.isTextual() ? v.textValue() : null;
  }
}
