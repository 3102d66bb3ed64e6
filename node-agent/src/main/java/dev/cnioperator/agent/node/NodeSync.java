package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.Appended;
import dev.cnioperator.agent.conflist.ChainAction;
import dev.cnioperator.agent.conflist.ChainApplier;
import dev.cnioperator.agent.conflist.ChainSync;
import dev.cnioperator.agent.conflist.ConflistAction;
import dev.cnioperator.agent.conflist.ConflistAction.Write;
import dev.cnioperator.agent.conflist.ConflistApplier;
import dev.cnioperator.agent.conflist.ConflistFileName;
import dev.cnioperator.agent.conflist.ConflistSync;
import dev.cnioperator.agent.conflist.Contests;
import dev.cnioperator.agent.conflist.DesiredConflist;
import dev.cnioperator.agent.conflist.NetworkOutcome;
import dev.cnioperator.agent.conflist.RuntimeDefault;
import dev.cnioperator.agent.conflist.RuntimeDropIns;
import dev.cnioperator.agent.conflist.UnparsableFiles;
import dev.cnioperator.agent.host.CreatedDirectories;
import dev.cnioperator.agent.host.DropInStore;
import dev.cnioperator.agent.host.DropIns;
import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.ManagedFile;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.agent.network.ManagedNetwork;
import dev.cnioperator.agent.plugin.BinaryAction;
import dev.cnioperator.agent.plugin.NetworkPlugins;
import dev.cnioperator.agent.plugin.PluginBinarySync;
import dev.cnioperator.agent.plugin.PluginInstaller;
import dev.cnioperator.agent.plugin.PluginOutcome;
import dev.cnioperator.agent.plugin.PluginRequest;
import dev.cnioperator.agent.plugin.PluginVersions;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.api.v1alpha1.RuntimeDefaultFile;
import dev.cnioperator.api.v1alpha1.UnparsableFile;
import dev.cnioperator.cni.config.LibcniNetworks;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the node's conf dirs and bin dir match a CniNode spec: plugin binaries first (a network is
 * only written once its plugins are present and speak its version), then the conflists, each in its
 * directory (the runtime's, or Multus's for a secondary network). Then it looks for the files in
 * Multus's directory that Multus cannot parse.
 */
public final class NodeSync {
  private static final Logger LOG = LoggerFactory.getLogger(NodeSync.class);

  private final HostPaths paths;
  private final HostFiles files;
  private final ManifestStore store;
  private final PluginInstaller installer;
  private final PluginVersions versions;

  /**
   * How often one pass looks at another product's file that is being written, and how long apart.
   */
  private static final int CHAIN_LOOKS = 5;

  private static final Duration CHAIN_SETTLE = Duration.ofMillis(20);

  private final ConflistSync conflistSync = new ConflistSync();
  private final ChainSync chainSync = new ChainSync();
  private final PluginBinarySync binarySync = new PluginBinarySync();
  private final CreatedDirectories multusDirs;
  private final Contests contests;
  private final Supplier<RuntimeDropIns> runtimeDropIns;
  private final DropInStore dropInStore;

  /**
   * @param runtimeDropIns whether the node's runtime loads libcni's drop-ins, asked at each pass
   *     that holds a network asking for them
   */
  public NodeSync(
      HostPaths paths,
      HostFiles files,
      ManifestStore store,
      PluginInstaller installer,
      PluginVersions versions,
      Clock clock,
      Supplier<RuntimeDropIns> runtimeDropIns) {
    this.contests = new Contests(clock);
    this.runtimeDropIns = runtimeDropIns;
    this.dropInStore = new DropInStore(files, paths.dropInsFile());
    this.paths = paths;
    this.files = files;
    this.store = store;
    this.installer = installer;
    this.versions = versions;
    this.multusDirs =
        new CreatedDirectories(files, paths.multusConfDir(), paths.createdDirectoriesFile());
  }

  /**
   * What one pass found and did.
   *
   * @param unparsableFiles the files of Multus's directory that are not the agent's and that Multus
   *     cannot parse, in the order Multus reads them
   * @param chains for each network whose plugins run in a chain with other products' (appended to
   *     another product's file, or with another installer's plugins appended to its own), the
   *     content of that file now: what the runtime runs, and what the probe proves
   * @param defaultFile the file the runtime loads as its pod network, described; null when none
   * @param podNetworkChain the networks of this node that make up the runtime's pod network: its
   *     own, when the pod network is one of them (in its file or Multus's copy), and every network
   *     appended to it ({@code spec.appendTo})
   */
  public record Result(
      List<NetworkOutcome> networks,
      List<PluginOutcome> plugins,
      List<String> removedNetworks,
      List<UnparsableFile> unparsableFiles,
      Map<String, byte[]> chains,
      RuntimeDefaultFile defaultFile,
      List<String> podNetworkChain) {

    /** A pass whose default file holds network {@code defaultNetwork}, with no chains. */
    public Result(
        List<NetworkOutcome> networks,
        List<PluginOutcome> plugins,
        List<String> removedNetworks,
        String defaultNetwork,
        List<UnparsableFile> unparsableFiles) {
      this(
          networks,
          plugins,
          removedNetworks,
          unparsableFiles,
          Map.of(),
          defaultNetwork == null ? null : new RuntimeDefaultFile().setNetworkName(defaultNetwork),
          List.of());
    }

    /**
     * The network of the file runtimes take as the default: the name in it, else its file name when
     * it has no readable name; null when the directory has none.
     */
    public String defaultNetwork() {
      return defaultFile == null
          ? null
          : Objects.requireNonNullElse(defaultFile.getNetworkName(), defaultFile.getFileName());
    }

    /** This result with {@code removed} as the networks it took off the node, all else kept. */
    public Result withRemoved(List<String> removed) {
      return new Result(
          networks, plugins, removed, unparsableFiles, chains, defaultFile, podNetworkChain);
    }
  }

  /** The runtime's configuration directory, where other products' networks are. */
  public Path runtimeConfDir() {
    return paths.confDir();
  }

  /** Multus's configuration directory, where the agent writes the Multus networks' files. */
  public Path multusConfDir() {
    return paths.multusConfDir();
  }

  /**
   * Whether {@code fileName} of {@code directory} needs no pass: not a configuration file (the
   * agent's temporary files, another product's), or as this agent last wrote it, its own file at
   * the content the manifest records or another product's file with the chain the agent appended to
   * it. Anything else, and whatever cannot be read, does.
   */
  public boolean asWritten(ConfigDirectory directory, String fileName) {
    if (ConflistFileName.RUNTIME_EXTENSIONS.stream().noneMatch(fileName::endsWith)) {
      return true;
    }
    try {
      Optional<String> disk = files.sha256(paths.confDir(directory).resolve(fileName));
      if (disk.isEmpty()) {
        return false;
      }
      Manifest manifest = store.load();
      Optional<ManagedFile> own = manifest.conflist(directory, fileName);
      if (own.isPresent()) {
        return disk.get().equals(own.get().sha256());
      }
      return directory == ConfigDirectory.Runtime
          && manifest.chains().values().stream()
              .anyMatch(c -> c.fileName().equals(fileName) && disk.get().equals(c.sha256()));
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * Prepares the directories and removes temporary files a killed agent left behind (in the drop-in
   * directories it writes to too). Multus's directory is made only when a network is first written
   * there, and removed with the last one (when the agent made it): a node without Multus networks
   * gets none.
   */
  public void prepare() throws IOException {
    for (Path dir : List.of(paths.confDir(), paths.binDir(), paths.stateDir())) {
      files.createDirectories(dir);
      files.removeLeftoverTemporaryFiles(dir);
    }
    files.removeLeftoverTemporaryFiles(paths.multusConfDir());
    for (DropIns.Files written : dropInStore.load().networks().values()) {
      files.removeLeftoverTemporaryFiles(paths.confDir().resolve(written.target()));
    }
  }

  /** One pass over the node's files. */
  public Result sync(List<ManagedNetwork> networks, Map<String, PluginRequest> requested)
      throws IOException {
    PluginInstaller.Applied installed = syncPlugins(networks, requested, store.load());
    List<PluginOutcome> plugins = versions.annotate(installed.outcomes());
    Map<String, PluginOutcome> byName = new HashMap<>();
    plugins.forEach(p -> byName.put(p.name(), p));

    Map<String, String> heldBack = new LinkedHashMap<>();
    List<DesiredConflist> desired = new ArrayList<>();
    List<DesiredConflist> chained = new ArrayList<>();
    Map<String, ManagedNetwork> byNetwork = new HashMap<>();
    for (ManagedNetwork n : networks) {
      byNetwork.put(n.name(), n);
      if (n.appended()) {
        // Its plugins' versions are checked against the target's cniVersion, found on disk.
        chained.add(n.conflist());
        if (n.invalid() != null) {
          heldBack.put(n.name(), n.invalid());
        }
        continue;
      }
      desired.add(n.conflist());
      Optional<String> problem =
          n.invalid() != null ? Optional.of(n.invalid()) : n.plugins().problem(byName);
      problem.ifPresent(p -> heldBack.put(n.name(), p));
    }
    // As the plugin installs left it: each saved the manifest before its rename.
    Manifest manifest = installed.manifest();
    List<ConflistAction> actions =
        contests.own(
            conflistSync.plan(desired, heldBack, manifest, conflistContents(desired, manifest)),
            w -> seen(w, manifest));
    List<NetworkOutcome> outcomes =
        new ArrayList<>(
            new ConflistApplier(files, store, paths, multusDirs).apply(actions, manifest));
    Manifest applied = store.load();
    List<String> removed = removed(manifest, applied, networks);
    if (applied.conflists(ConfigDirectory.Multus).isEmpty()) {
      multusDirs.removeEmpty();
    }
    ChainApplier.Applied chains = syncChains(chained, heldBack, byNetwork, byName);
    outcomes.addAll(chains.outcomes());
    Map<String, byte[]> running = new HashMap<>(chains.chains());
    running.putAll(filesWithOthersPlugins(outcomes, desired));
    RuntimeDefaultFile defaultFile = defaultFile(desired);
    return new Result(
        outcomes,
        plugins,
        removed,
        unparsableMultusFiles(),
        running,
        defaultFile,
        podNetworkChain(defaultFile, desired, chained));
  }

  /**
   * The networks the pass took off the node: those whose files the manifest named before the pass
   * and not after it, unless the spec still lists them (one that moved to the other directory).
   */
  private static List<String> removed(
      Manifest before, Manifest after, List<ManagedNetwork> listed) {
    Set<String> sources = new TreeSet<>();
    Set<String> left = new HashSet<>();
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      before.conflists(dir).values().stream()
          .map(ManagedFile::source)
          .filter(Objects::nonNull)
          .forEach(sources::add);
      after.conflists(dir).values().forEach(f -> left.add(f.source()));
    }
    sources.removeAll(left);
    listed.forEach(n -> sources.remove(n.name()));
    return List.copyOf(sources);
  }

  /**
   * The networks of this node in the runtime's pod network: the one the default file is (or, for
   * Multus's file, holds a copy of), when it is this agent's, then those appended to it.
   */
  private static List<String> podNetworkChain(
      RuntimeDefaultFile defaultFile, List<DesiredConflist> own, List<DesiredConflist> chained) {
    if (defaultFile == null) {
      return List.of();
    }
    String pod =
        defaultFile.getCopyOf() != null ? defaultFile.getCopyOf() : defaultFile.getNetworkName();
    List<String> chain = new ArrayList<>();
    own.stream()
        .filter(d -> d.directory() == ConfigDirectory.Runtime && d.network().equals(pod))
        .forEach(d -> chain.add(d.network()));
    chained.stream().filter(d -> d.appendTo().equals(pod)).forEach(d -> chain.add(d.network()));
    return List.copyOf(chain);
  }

  /**
   * The networks of its own files to which another installer appended plugins whose binaries are
   * all on the node, with their file as it is: what the runtime runs, so what the probe proves.
   * When one of them has no binary in the bin dir, the probe proves the network's own chain and the
   * network's status says which plugin it left out: the runtime may find it in another of its bin
   * dirs, which the agent cannot see, so this is said, not counted as a failure.
   */
  private Map<String, byte[]> filesWithOthersPlugins(
      List<NetworkOutcome> outcomes, List<DesiredConflist> desired) throws IOException {
    Map<String, byte[]> found = new HashMap<>();
    for (int i = 0; i < outcomes.size(); i++) {
      NetworkOutcome o = outcomes.get(i);
      if (o.state() != NetworkState.Applied || o.appended().isEmpty()) {
        continue;
      }
      Optional<DesiredConflist> d =
          desired.stream().filter(x -> x.network().equals(o.network())).findFirst();
      List<String> missing = missing(o.appended().types());
      if (d.isPresent() && missing.isEmpty()) {
        found.put(o.network(), o.appended().onto(d.get()));
      } else if (!missing.isEmpty()) {
        outcomes.set(
            i,
            o.withMessage(
                o.fileName()
                    + " also chains "
                    + String.join(", ", missing)
                    + ", appended by another installer, with no binary in "
                    + paths.binDir()
                    + ": the probe proves this network's own plugins only; a runtime that finds"
                    + " no such plugin fails every pod on the network"));
      }
    }
    return found;
  }

  /** The plugin types of {@code types} with no binary in the bin dir. */
  private List<String> missing(List<String> types) throws IOException {
    // A listing, not a hash: istio-cni alone is 36 MB, and this runs every pass.
    Set<String> present = new HashSet<>(files.list(paths.binDir()));
    List<String> missing = new ArrayList<>();
    for (String type : types) {
      if (!isPlainName(type) || !present.contains(type)) {
        missing.add(type);
      }
    }
    return missing;
  }

  /**
   * Holds the networks appended to other products' files ({@link ChainSync}): their plugins are
   * checked against each target's cniVersion, read there.
   */
  private ChainApplier.Applied syncChains(
      List<DesiredConflist> chained,
      Map<String, String> heldBack,
      Map<String, ManagedNetwork> byNetwork,
      Map<String, PluginOutcome> plugins)
      throws IOException {
    ChainApplier.Applied chains = ChainApplier.Applied.NONE;
    RuntimeDropIns runtime =
        chained.stream().anyMatch(DesiredConflist::asksForDropIns)
            ? runtimeDropIns.get()
            : RuntimeDropIns.unknown("not asked: no network asks for drop-ins");
    for (int look = 1; look <= CHAIN_LOOKS; look++) {
      Manifest manifest = store.load();
      DropIns dropIns = dropInStore.load();
      if (chained.isEmpty() && manifest.chains().isEmpty() && dropIns.networks().isEmpty()) {
        break;
      }
      List<ChainAction> actions =
          contests.chains(
              chainSync.plan(
                  chained,
                  heldBack,
                  (d, version) ->
                      new NetworkPlugins(
                              d.network(), version, byNetwork.get(d.network()).plugins().types())
                          .problem(plugins),
                  manifest,
                  dropIns,
                  runtime,
                  runtimeConfigurations()));
      chains = new ChainApplier(files, store, paths).apply(actions, manifest, dropIns);
      if (!chains.passing()) {
        break;
      }
      // Another product is writing its file (cp truncates, then writes): a moment, then look again,
      // rather than report the network failed for the length of a write.
      sleep(CHAIN_SETTLE);
    }
    return chains;
  }

  /**
   * The runtime's directory, read whole: every configuration file, where another product's network
   * is looked up by name as libcni does, and the drop-ins of each list's drop-in directory, which
   * libcni loads with it.
   */
  private LibcniNetworks.Directory runtimeConfigurations() throws IOException {
    SortedMap<String, byte[]> found = new TreeMap<>();
    for (String name : LibcniNetworks.searchOrder(files.list(paths.confDir()))) {
      files.read(paths.confDir().resolve(name)).ifPresent(c -> found.put(name, c));
    }
    Map<String, SortedMap<String, byte[]>> dropIns = new HashMap<>();
    for (Map.Entry<String, byte[]> f : found.entrySet()) {
      if (!f.getKey().endsWith(".conflist")) {
        continue; // libcni gives a single-plugin file no drop-ins
      }
      String name = Appended.parse(f.getValue()).map(o -> o.path("name").asText("")).orElse("");
      if (isPlainName(name) && !dropIns.containsKey(name)) {
        dropIns.put(name, dropIns(paths.confDir().resolve(name)));
      }
    }
    return new LibcniNetworks.Directory(found, dropIns);
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

  /** What happened to the file a drift write restores: removed, renamed (to what), or changed. */
  private String seen(Write w, Manifest manifest) {
    if (w.reason() != WriteReason.RESTORE_REMOVED) {
      return "changed";
    }
    DesiredConflist d = w.desired();
    Optional<ManagedFile> owned = manifest.conflist(d.directory(), d.fileName());
    Path dir = paths.confDir(d.directory());
    try {
      for (String name : files.list(dir)) {
        if (!name.equals(d.fileName())
            && owned.isPresent()
            && owned.get().isOwnVersion(files.sha256(dir.resolve(name)).orElse(null))) {
          return "renamed to " + name;
        }
      }
    } catch (IOException e) {
      return "removed (the directory cannot be listed: " + e.getMessage() + ")";
    }
    return "removed";
  }

  /**
   * The files of Multus's directory that are not the agent's (as it wrote them) and that Multus
   * cannot parse. Read after the pass's writes: the manifest as they left it.
   */
  private List<UnparsableFile> unparsableMultusFiles() {
    Manifest manifest = store.load();
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

  private PluginInstaller.Applied syncPlugins(
      List<ManagedNetwork> networks, Map<String, PluginRequest> requested, Manifest manifest)
      throws IOException {
    Set<String> needed = new TreeSet<>();
    networks.forEach(n -> needed.addAll(n.plugins().types()));
    Set<String> all = new TreeSet<>(needed);
    all.addAll(requested.keySet());
    Map<String, String> bundled = new HashMap<>();
    Map<String, String> onDisk = new HashMap<>();
    for (String name : all) {
      if (!isPlainName(name)) {
        continue;
      }
      files.sha256(paths.bundledPluginDir().resolve(name)).ifPresent(s -> bundled.put(name, s));
      files.sha256(paths.binDir().resolve(name)).ifPresent(s -> onDisk.put(name, s));
    }
    List<BinaryAction> actions = binarySync.plan(needed, requested, bundled, manifest, onDisk);
    return installer.apply(actions, manifest);
  }

  /**
   * The content of the files of each directory the manifest or the spec names: read whole each pass
   * (a few kilobytes), so a rewrite of the same size within one tick of the file system's clock is
   * seen too.
   */
  private Map<ConfigDirectory, Map<String, byte[]>> conflistContents(
      List<DesiredConflist> desired, Manifest manifest) throws IOException {
    Map<ConfigDirectory, Map<String, byte[]>> contents = new EnumMap<>(ConfigDirectory.class);
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      Set<String> names = new TreeSet<>(manifest.conflists(dir).keySet());
      desired.stream().filter(d -> d.directory() == dir).forEach(d -> names.add(d.fileName()));
      Map<String, byte[]> inDir = new HashMap<>();
      for (String name : names) {
        if (ConflistFileName.problem(name).isEmpty()) {
          files.read(paths.confDir(dir).resolve(name)).ifPresent(c -> inDir.put(name, c));
        }
      }
      contents.put(dir, inDir);
    }
    return contents;
  }

  /**
   * The file runtimes take as the default (the first in byte order), its network, and whether a
   * copy of one of this agent's networks in it (Multus's delegate) is current; null when the
   * directory has none.
   */
  private RuntimeDefaultFile defaultFile(List<DesiredConflist> desired) throws IOException {
    Optional<String> first = ConflistFileName.defaultNetworkFile(files.list(paths.confDir()));
    if (first.isEmpty()) {
      return null;
    }
    Map<String, String> own = new HashMap<>();
    for (DesiredConflist d : desired) {
      if (d.appendTo() == null && d.directory() == ConfigDirectory.Runtime) {
        own.put(d.network(), d.fileName());
      }
    }
    return RuntimeDefault.describe(
        first.get(),
        files.read(paths.confDir().resolve(first.get())),
        own,
        name -> {
          try {
            return files.read(paths.confDir().resolve(name));
          } catch (IOException e) {
            return Optional.empty();
          }
        });
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean isPlainName(String name) {
    return name != null && !name.isEmpty() && !name.contains("/") && !name.contains("..");
  }
}
