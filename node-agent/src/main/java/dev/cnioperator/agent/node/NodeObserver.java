package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.RuntimeDropIns;
import dev.cnioperator.agent.conflist.UnparsableFiles;
import dev.cnioperator.agent.host.DropInStore;
import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.ManagedFile;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.UnparsableFile;
import dev.cnioperator.cni.config.LibcniNetworks;
import dev.cnioperator.cni.io.CniJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * The one reader of the node's disk for a pass ({@link NodeSync}): what is there before the pass
 * changes anything ({@link #observe}), and what its report needs after ({@link #after}). The
 * appliers read a file again only just before replacing it, to leave it alone when it changed
 * since.
 */
public final class NodeObserver {
  private final HostPaths paths;
  private final HostFiles files;
  private final ManifestStore store;
  private final DropInStore dropIns;
  private final Supplier<RuntimeDropIns> runtimeDropIns;

  public NodeObserver(
      HostPaths paths,
      HostFiles files,
      ManifestStore store,
      DropInStore dropIns,
      Supplier<RuntimeDropIns> runtimeDropIns) {
    this.paths = paths;
    this.files = files;
    this.store = store;
    this.dropIns = dropIns;
    this.runtimeDropIns = runtimeDropIns;
  }

  /**
   * The node before a pass.
   *
   * @param plugins the plugin binaries the pass may install, by name
   * @param askRuntime whether a network asks for drop-ins, so that the runtime's version matters
   */
  public NodeObservation observe(Collection<String> plugins, boolean askRuntime)
      throws IOException {
    Map<String, String> bundled = new HashMap<>();
    Map<String, String> installed = new HashMap<>();
    for (String name : plugins) {
      if (isPlainName(name)) {
        files.sha256(paths.bundledPluginDir().resolve(name)).ifPresent(s -> bundled.put(name, s));
        files.sha256(paths.binDir().resolve(name)).ifPresent(s -> installed.put(name, s));
      }
    }
    Map<ConfigDirectory, SortedMap<String, byte[]>> dirs = new EnumMap<>(ConfigDirectory.class);
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      dirs.put(dir, readAll(paths.confDir(dir)));
    }
    return new NodeObservation(
        store.load(),
        dropIns.load(),
        bundled,
        installed,
        dirs,
        runtimeDirectory(dirs.get(ConfigDirectory.Runtime)),
        askRuntime
            ? runtimeDropIns.get()
            : RuntimeDropIns.unknown("not asked: no network asks for drop-ins"));
  }

  /** What the pass's report needs, read after its writes. */
  public NodeObservation.After after() throws IOException {
    Manifest manifest = store.load();
    SortedMap<String, byte[]> runtime = configFiles(readAll(paths.confDir()));
    return new NodeObservation.After(
        manifest,
        runtime,
        new HashSet<>(files.list(paths.binDir())),
        unparsableMultusFiles(manifest));
  }

  /**
   * The files of Multus's directory that are not the agent's (as it wrote them) and that Multus
   * cannot parse: judged as libcni judges them, drop-in directories included.
   */
  private List<UnparsableFile> unparsableMultusFiles(Manifest manifest) {
    List<Map<String, ManagedFile>> owners = new ArrayList<>();
    owners.add(manifest.conflists(ConfigDirectory.Multus));
    if (paths.multusConfDir().equals(paths.confDir())) {
      owners.add(manifest.conflists(ConfigDirectory.Runtime));
    }
    return UnparsableFiles.in(
        paths.multusConfDir(),
        name -> owners.stream().anyMatch(owned -> isOwn(owned.get(name), name)));
  }

  private boolean isOwn(ManagedFile owned, String name) {
    try {
      return owned != null
          && owned.isOwnVersion(files.sha256(paths.multusConfDir().resolve(name)).orElse(null));
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * The runtime's configuration files, where another product's network is looked up by name as
   * libcni does, with the drop-ins of each list's drop-in directory, which libcni loads with it.
   */
  private LibcniNetworks.Directory runtimeDirectory(SortedMap<String, byte[]> all)
      throws IOException {
    SortedMap<String, byte[]> found = configFiles(all);
    Map<String, SortedMap<String, byte[]>> in = new HashMap<>();
    for (Map.Entry<String, byte[]> f : found.entrySet()) {
      if (!f.getKey().endsWith(".conflist")) {
        continue; // libcni gives a single-plugin file no drop-ins
      }
      String name = CniJson.object(f.getValue()).map(o -> o.path("name").asText("")).orElse("");
      if (isPlainName(name) && !in.containsKey(name)) {
        in.put(name, dropIns(paths.confDir().resolve(name)));
      }
    }
    return new LibcniNetworks.Directory(found, in);
  }

  /** The configuration files among {@code all}: those libcni looks a network up in. */
  private static SortedMap<String, byte[]> configFiles(SortedMap<String, byte[]> all) {
    SortedMap<String, byte[]> found = new TreeMap<>();
    for (String name : LibcniNetworks.searchOrder(all.keySet())) {
      found.put(name, all.get(name));
    }
    return found;
  }

  /** The drop-ins of {@code dir}, read; none when there is no such directory. */
  private SortedMap<String, byte[]> dropIns(Path dir) throws IOException {
    SortedMap<String, byte[]> in = new TreeMap<>();
    for (String name : files.list(dir)) {
      if (LibcniNetworks.isDropIn(name)) {
        files.read(dir.resolve(name)).ifPresent(c -> in.put(name, c));
      }
    }
    return in;
  }

  /** Every regular file of {@code dir}, read; none when it does not exist. */
  private SortedMap<String, byte[]> readAll(Path dir) throws IOException {
    SortedMap<String, byte[]> all = new TreeMap<>();
    for (String name : files.list(dir)) {
      files.read(dir.resolve(name)).ifPresent(c -> all.put(name, c));
    }
    return all;
  }

  static boolean isPlainName(String name) {
    return name != null && !name.isEmpty() && !name.contains("/") && !name.contains("..");
  }
}
