package dev.cnioperator.agent.node;

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
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
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
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * One pass that makes the node's conf dirs and bin dir match a CniNode spec, in phases: observe
 * ({@link NodeObserver}, the one reader of the node), then plan and apply the plugin binaries (a
 * network is only written once its plugins are present and speak its version), the networks' own
 * files, each in its directory (the runtime's, or Multus's for a secondary network), and the
 * networks declared onto other products' (in place or as drop-ins), each plan made from the
 * observation alone; then the report, from what was done and what the node holds after.
 */
public final class NodeSync {

  private final HostPaths paths;
  private final HostFiles files;
  private final ManifestStore store;
  private final PluginInstaller installer;
  private final PluginVersions versions;

  private final ConflistSync conflistSync = new ConflistSync();
  private final ChainSync chainSync = new ChainSync();
  private final PluginBinarySync binarySync = new PluginBinarySync();
  private final CreatedDirectories multusDirs;
  private final Contests contests;
  private final DropInStore dropInStore;
  private final NodeObserver observer;

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
    this.dropInStore = new DropInStore(files, paths.dropInsFile());
    this.observer = new NodeObserver(paths, files, store, dropInStore, runtimeDropIns);
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
   * @param passing true when something was left for a moment's state of a file (another product's
   *     file half-written, or changed while the agent was writing it): worth a new look at once,
   *     before the result is reported
   */
  public record Result(
      List<NetworkOutcome> networks,
      List<PluginOutcome> plugins,
      List<String> removedNetworks,
      List<UnparsableFile> unparsableFiles,
      Map<String, byte[]> chains,
      RuntimeDefaultFile defaultFile,
      List<String> podNetworkChain,
      boolean passing) {

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
          List.of(),
          false);
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
          networks,
          plugins,
          removed,
          unparsableFiles,
          chains,
          defaultFile,
          podNetworkChain,
          passing);
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

  /**
   * One pass over the node's files: observe (the one read of the node before any change), the
   * plugin binaries planned and installed, the networks' own files and the chains declared onto
   * other products' networks each planned from that observation and applied, then the report, from
   * what was done and a read of the node after.
   */
  public Result sync(List<ManagedNetwork> networks, Map<String, PluginRequest> requested)
      throws IOException {
    NodeObservation seen =
        observer.observe(pluginNames(networks, requested), asksForDropIns(networks));
    PluginInstaller.Applied installed =
        installer.apply(
            binarySync.plan(
                needed(networks),
                requested,
                seen.bundledPlugins(),
                seen.manifest(),
                seen.installedPlugins()),
            seen.manifest());
    List<PluginOutcome> plugins = versions.annotate(installed.outcomes());
    Wanted wanted = Wanted.of(networks, plugins);
    ConflistApplier.Applied own = applyOwn(wanted, installed.manifest(), seen);
    ChainApplier.Applied chains = applyChains(wanted, own.manifest(), seen);
    return report(networks, wanted, plugins, installed.manifest(), own, chains, observer.after());
  }

  /**
   * What the spec wants of this pass: the networks of their own files and those declared onto other
   * products', and which must not be (re)applied now, with why.
   */
  private record Wanted(
      List<DesiredConflist> own,
      List<DesiredConflist> chained,
      Map<String, String> heldBack,
      Map<String, ManagedNetwork> byNetwork,
      Map<String, PluginOutcome> plugins) {

    static Wanted of(List<ManagedNetwork> networks, List<PluginOutcome> plugins) {
      Map<String, PluginOutcome> byName = new HashMap<>();
      plugins.forEach(p -> byName.put(p.name(), p));
      Map<String, String> heldBack = new LinkedHashMap<>();
      List<DesiredConflist> own = new ArrayList<>();
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
        own.add(n.conflist());
        Optional<String> problem =
            n.invalid() != null ? Optional.of(n.invalid()) : n.plugins().problem(byName);
        problem.ifPresent(p -> heldBack.put(n.name(), p));
      }
      return new Wanted(own, chained, heldBack, byNetwork, byName);
    }

    /** Why {@code d}'s plugins cannot run with {@code version}, a target's cniVersion. */
    Optional<String> pluginProblem(DesiredConflist d, String version) {
      return new NetworkPlugins(d.network(), version, byNetwork.get(d.network()).plugins().types())
          .problem(plugins);
    }
  }

  /** The networks' own files, planned on what was seen, written, each restore under the bound. */
  private ConflistApplier.Applied applyOwn(Wanted wanted, Manifest manifest, NodeObservation seen) {
    List<ConflistAction> actions =
        contests.own(
            conflistSync.plan(
                wanted.own(),
                wanted.heldBack(),
                manifest,
                ownContents(wanted.own(), manifest, seen)),
            w -> seen(w, manifest, seen));
    ConflistApplier.Applied applied =
        new ConflistApplier(files, store, paths, multusDirs).apply(actions, manifest);
    if (applied.manifest().conflists(ConfigDirectory.Multus).isEmpty()) {
      multusDirs.removeEmpty();
    }
    return applied;
  }

  /**
   * The networks declared onto other products' ({@link ChainSync}), planned on the runtime's
   * directory as seen: their own files in it are always whole and never name another product's
   * network, so the writes of the pass change no lookup.
   */
  private ChainApplier.Applied applyChains(Wanted wanted, Manifest manifest, NodeObservation seen) {
    if (wanted.chained().isEmpty()
        && manifest.chains().isEmpty()
        && seen.dropIns().networks().isEmpty()) {
      return ChainApplier.Applied.NONE;
    }
    List<ChainAction> actions =
        contests.chains(
            chainSync.plan(
                wanted.chained(),
                wanted.heldBack(),
                wanted::pluginProblem,
                manifest,
                seen.dropIns(),
                seen.runtimeDropIns(),
                seen.runtime()));
    return new ChainApplier(files, store, paths).apply(actions, manifest, seen.dropIns());
  }

  /** The pass's result, from what it did and what the node holds after it. */
  private Result report(
      List<ManagedNetwork> networks,
      Wanted wanted,
      List<PluginOutcome> plugins,
      Manifest before,
      ConflistApplier.Applied own,
      ChainApplier.Applied chains,
      NodeObservation.After after) {
    List<NetworkOutcome> outcomes = new ArrayList<>(own.outcomes());
    outcomes.addAll(chains.outcomes());
    Map<String, byte[]> running = new HashMap<>(chains.chains());
    running.putAll(filesWithOthersPlugins(outcomes, wanted.own(), after.binDir()));
    RuntimeDefaultFile defaultFile = defaultFile(wanted.own(), after.runtimeFiles());
    return new Result(
        outcomes,
        plugins,
        removed(before, after.manifest(), networks),
        after.unparsableMultusFiles(),
        running,
        defaultFile,
        podNetworkChain(defaultFile, wanted.own(), wanted.chained()),
        chains.passing());
  }

  private static Set<String> pluginNames(
      List<ManagedNetwork> networks, Map<String, PluginRequest> requested) {
    Set<String> all = new TreeSet<>(needed(networks));
    all.addAll(requested.keySet());
    return all;
  }

  private static Set<String> needed(List<ManagedNetwork> networks) {
    Set<String> needed = new TreeSet<>();
    networks.forEach(n -> needed.addAll(n.plugins().types()));
    return needed;
  }

  private static boolean asksForDropIns(List<ManagedNetwork> networks) {
    return networks.stream().anyMatch(n -> n.conflist().asksForDropIns());
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
      List<NetworkOutcome> outcomes, List<DesiredConflist> desired, Set<String> binDir) {
    Map<String, byte[]> found = new HashMap<>();
    for (int i = 0; i < outcomes.size(); i++) {
      NetworkOutcome o = outcomes.get(i);
      if (o.state() != NetworkState.Applied || o.appended().isEmpty()) {
        continue;
      }
      Optional<DesiredConflist> d =
          desired.stream().filter(x -> x.network().equals(o.network())).findFirst();
      // A listing, not a hash: istio-cni alone is 36 MB, and this runs every pass.
      List<String> missing =
          o.appended().types().stream()
              .filter(type -> !isPlainName(type) || !binDir.contains(type))
              .toList();
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

  /**
   * What happened to the file a drift write restores, as seen before the pass: removed, renamed (to
   * what: a file of the directory with a version the agent wrote), or changed.
   */
  private static String seen(Write w, Manifest manifest, NodeObservation seen) {
    if (w.reason() != WriteReason.RESTORE_REMOVED) {
      return "changed";
    }
    DesiredConflist d = w.desired();
    Optional<ManagedFile> owned = manifest.conflist(d.directory(), d.fileName());
    if (owned.isEmpty()) {
      return "removed";
    }
    return seen.withSha256(d.directory(), owned.get()::isOwnVersion, d.fileName())
        .map(name -> "renamed to " + name)
        .orElse("removed");
  }

  /**
   * The content of the files of each directory the manifest or the spec names, as seen: read whole
   * each pass (a few kilobytes), so a rewrite of the same size within one tick of the file system's
   * clock is seen too.
   */
  private static Map<ConfigDirectory, Map<String, byte[]>> ownContents(
      List<DesiredConflist> desired, Manifest manifest, NodeObservation seen) {
    Map<ConfigDirectory, Map<String, byte[]>> contents = new EnumMap<>(ConfigDirectory.class);
    for (ConfigDirectory dir : ConfigDirectory.values()) {
      Set<String> names = new TreeSet<>(manifest.conflists(dir).keySet());
      desired.stream().filter(d -> d.directory() == dir).forEach(d -> names.add(d.fileName()));
      Map<String, byte[]> inDir = new HashMap<>();
      for (String name : names) {
        byte[] content = seen.in(dir).get(name);
        if (ConflistFileName.problem(name).isEmpty() && content != null) {
          inDir.put(name, content);
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
  private static RuntimeDefaultFile defaultFile(
      List<DesiredConflist> desired, SortedMap<String, byte[]> runtimeFiles) {
    Optional<String> first =
        ConflistFileName.defaultNetworkFile(List.copyOf(runtimeFiles.keySet()));
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
        Optional.ofNullable(runtimeFiles.get(first.get())),
        own,
        name -> Optional.ofNullable(runtimeFiles.get(name)));
  }

  private static boolean isPlainName(String name) {
    return name != null && !name.isEmpty() && !name.contains("/") && !name.contains("..");
  }
}
