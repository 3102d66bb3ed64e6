package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.agent.conflist.ChainAction.Append;
import dev.cnioperator.agent.conflist.ChainAction.Drop;
import dev.cnioperator.agent.conflist.ChainAction.InPlace;
import dev.cnioperator.agent.conflist.ChainAction.PlaceDropIns;
import dev.cnioperator.agent.conflist.ChainAction.RemoveDropIns;
import dev.cnioperator.agent.conflist.ChainAction.Unappend;
import dev.cnioperator.agent.conflist.ChainAction.Waiting;
import dev.cnioperator.agent.host.AppendedChain;
import dev.cnioperator.agent.host.DropIns;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.config.LibcniNetworks;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiFunction;

/**
 * Decides how the networks declared with {@code spec.appendTo} are held in other products' files:
 * desired entries + what the agent appended before (the manifest) + the runtime's directory in,
 * actions out. Pure, so every rule is a unit test.
 *
 * <p>The target is found by its CNI name as libcni finds it ({@link ChainTarget}), every pass, so a
 * product that renames or rewrites its file is followed. The entries are appended idempotently: the
 * entries the agent appended before, and any entry after the first of a type the declaration names,
 * are taken out, then the declared entries are appended, so the file holds one entry per declared
 * plugin whatever was there. The other product's own entries, and its top-level fields, are left as
 * they are; the file is written in the form Go re-marshals JSON in (keys sorted, two spaces), which
 * is what the chaining installers that edit the file write too.
 */
public final class ChainSync {

  /**
   * As {@link #plan(List, Map, BiFunction, Manifest, DropIns, RuntimeDropIns,
   * LibcniNetworks.Directory)} with no drop-ins, on a runtime not asked.
   */
  public List<ChainAction> plan(
      List<DesiredConflist> desired,
      Map<String, String> heldBack,
      BiFunction<DesiredConflist, String, Optional<String>> pluginProblem,
      Manifest manifest,
      LibcniNetworks.Directory dir) {
    return plan(
        desired,
        heldBack,
        pluginProblem,
        manifest,
        DropIns.NONE,
        RuntimeDropIns.unknown("the runtime was not asked"),
        dir);
  }

  /**
   * @param desired the networks with {@code appendTo}, in spec order
   * @param heldBack networks that must not be (re)applied now, with the reason
   * @param pluginProblem why a network's plugins cannot run with a target's cniVersion, if they
   *     cannot
   * @param manifest what the agent appended in place before
   * @param dropIns the drop-in files the agent wrote before
   * @param runtime whether the node's runtime loads drop-ins
   * @param dir the runtime's configuration directory, read: its files (.conf, .conflist, .json)
   *     with their content, and the drop-ins of its sub-directories
   */
  public List<ChainAction> plan(
      List<DesiredConflist> desired,
      Map<String, String> heldBack,
      BiFunction<DesiredConflist, String, Optional<String>> pluginProblem,
      Manifest manifest,
      DropIns dropIns,
      RuntimeDropIns runtime,
      LibcniNetworks.Directory dir) {
    // Where each network's entries go is judged on the directory without the agent's drop-ins;
    // what the runtime will run, on the directory with the drop-ins the agent is to hold.
    LibcniNetworks.Directory foreign = withoutAgents(dir, dropIns);
    Map<String, Placement> placements = new HashMap<>();
    desired.forEach(d -> placements.put(d.network(), placement(d, runtime, foreign)));
    LibcniNetworks.Directory planned = withPlanned(foreign, desired, placements);
    Context context = new Context(heldBack, pluginProblem, dir, planned);
    List<ChainAction> actions = new ArrayList<>();
    Set<String> listed = new HashSet<>();
    for (DesiredConflist d : desired) {
      listed.add(d.network());
      actions.addAll(
          decide(
              d,
              placements.get(d.network()),
              manifest.chain(d.network()),
              dropIns.of(d.network()),
              context));
    }
    for (Map.Entry<String, DropIns.Files> e : dropIns.networks().entrySet()) {
      if (!listed.contains(e.getKey())) {
        actions.add(removeDropIns(e.getKey(), e.getValue(), dir));
      }
    }
    for (Map.Entry<String, AppendedChain> e : manifest.chains().entrySet()) {
      if (!listed.contains(e.getKey())) {
        actions.add(takeOut(e.getKey(), e.getValue(), dir.files()));
      }
    }
    return actions;
  }

  /** What one plan reads from: the rules and the directory as observed and as planned. */
  private record Context(
      Map<String, String> heldBack,
      BiFunction<DesiredConflist, String, Optional<String>> pluginProblem,
      LibcniNetworks.Directory observed,
      LibcniNetworks.Directory planned) {}

  /**
   * Where a network's entries go: {@code files} as drop-ins, or in place (with why, when drop-ins
   * were asked for); {@code unsure} when it cannot be told, and nothing is moved.
   */
  private record Placement(SortedMap<String, byte[]> files, String note, String unsure) {
    static Placement inPlace(String note) {
      return new Placement(null, note, null);
    }

    boolean dropIn() {
      return files != null;
    }
  }

  private static Placement placement(
      DesiredConflist d, RuntimeDropIns runtime, LibcniNetworks.Directory foreign) {
    if (!d.asksForDropIns() || d.contentProblem().isPresent()) {
      return Placement.inPlace("");
    }
    if (runtime.kind() == RuntimeDropIns.Kind.UNKNOWN) {
      return new Placement(
          null,
          "",
          "drop-ins asked for, and whether the node's runtime loads them is not known: "
              + runtime.why()
              + "; nothing is moved until it is");
    }
    if (runtime.kind() == RuntimeDropIns.Kind.NOT_LOADED) {
      return Placement.inPlace("held in place, not as drop-ins: " + runtime.why());
    }
    ChainTarget target = ChainTarget.resolve(d.appendTo(), foreign);
    Optional<String> inlinedOnly =
        target.accept(
            found ->
                found.list().path("loadOnlyInlinedPlugins").asBoolean(false)
                    ? Optional.of(found.fileName())
                    : Optional.empty(),
            absent -> Optional.empty());
    if (inlinedOnly.isPresent()) {
      return Placement.inPlace(
          "held in place, not as drop-ins: "
              + inlinedOnly.get()
              + " sets loadOnlyInlinedPlugins, so libcni loads no drop-ins for network "
              + d.appendTo());
    }
    return new Placement(dropInFiles(d), "", null);
  }

  private static List<ChainAction> decide(
      DesiredConflist d,
      Placement placement,
      Optional<AppendedChain> before,
      Optional<DropIns.Files> written,
      Context context) {
    if (context.heldBack().containsKey(d.network())) {
      return List.of(new Waiting(d, context.heldBack().get(d.network())));
    }
    if (d.contentProblem().isPresent()) {
      return List.of(new Waiting(d, d.contentProblem().get()));
    }
    ChainTarget target = ChainTarget.resolve(d.appendTo(), context.planned());
    return target.accept(
        found -> {
          Optional<String> problem = context.pluginProblem().apply(d, found.cniVersion());
          if (problem.isPresent()) {
            return List.of(
                new Waiting(
                    d,
                    problem.get()
                        + ", the cniVersion of network "
                        + d.appendTo()
                        + " in "
                        + found.fileName()));
          }
          if (placement.unsure() != null) {
            return List.of(new Waiting(d, placement.unsure()));
          }
          return placement.dropIn()
              ? asDropIns(d, placement.files(), found, before, written, context)
              : inPlace(d, placement.note(), found, before, written, context.observed());
        },
        absent -> List.of(new Waiting(d, absent.why(), absent.passing())));
  }

  /**
   * The entries as drop-ins; then, when they were in the target's file, taken out of it: that write
   * is the event the runtime reloads on, and until it, the runtime runs the file as it was.
   */
  private static List<ChainAction> asDropIns(
      DesiredConflist d,
      SortedMap<String, byte[]> files,
      ChainTarget.Found found,
      Optional<AppendedChain> before,
      Optional<DropIns.Files> written,
      Context context) {
    List<ChainAction> actions = new ArrayList<>();
    Map<String, String> recorded = new HashMap<>();
    if (written.isPresent() && !written.get().target().equals(d.appendTo())) {
      actions.add(removeDropIns(d.network(), written.get(), context.observed()));
    } else {
      written.ifPresent(w -> recorded.putAll(w.files()));
    }
    SortedMap<String, byte[]> onDisk =
        context.observed().dropIns().getOrDefault(d.appendTo(), new TreeMap<>());
    SortedMap<String, byte[]> write = new TreeMap<>();
    boolean restored = false;
    for (Map.Entry<String, byte[]> f : files.entrySet()) {
      if (!Arrays.equals(onDisk.get(f.getKey()), f.getValue())) {
        write.put(f.getKey(), f.getValue());
        restored |= Sha256.hex(f.getValue()).equals(recorded.get(f.getKey()));
      }
    }
    List<String> stale = new ArrayList<>();
    recorded.forEach(
        (name, sha) -> {
          byte[] disk = onDisk.get(name);
          if (!files.containsKey(name) && disk != null && Sha256.hex(disk).equals(sha)) {
            stale.add(name);
          }
        });
    ObjectNode file = withoutDeclared(found.list(), before.map(ChainSync::entries), Set.of());
    actions.add(
        new PlaceDropIns(
            d,
            found.fileName(),
            files,
            write,
            List.copyOf(new TreeSet<>(stale)),
            restored,
            CanonicalJson.render(found.runs(file))));
    before.ifPresent(b -> actions.add(takeOut(d.network(), b, context.observed().files())));
    return actions;
  }

  /**
   * The entries appended to the target's file. Drop-ins the agent wrote for the network before come
   * out first, with no reload of their own: the append's write is the event the runtime reloads on,
   * so it never runs both.
   */
  private static List<ChainAction> inPlace(
      DesiredConflist d,
      String note,
      ChainTarget.Found found,
      Optional<AppendedChain> before,
      Optional<DropIns.Files> written,
      LibcniNetworks.Directory observed) {
    SortedMap<String, byte[]> files = observed.files();
    List<ChainAction> actions = new ArrayList<>();
    written.ifPresent(w -> actions.add(removeDropIns(d.network(), w, observed)));
    ArrayNode declared = declaredEntries(d);
    ObjectNode next =
        withoutDeclared(found.list(), before.map(ChainSync::entries), types(declared));
    declared.forEach(e -> next.withArray("plugins").add(e.deepCopy()));
    byte[] read = files.get(found.fileName());
    String entries = new String(CanonicalJson.render(declared), StandardCharsets.UTF_8);
    byte[] runs = CanonicalJson.render(found.runs(next));
    if (Appended.same(next, found.list())) {
      actions.add(new InPlace(d, found.fileName(), read, entries, runs, note));
    } else {
      boolean reapplied =
          before.isPresent()
              && before.get().fileName().equals(found.fileName())
              && !Sha256.hex(read).equals(before.get().sha256());
      actions.add(
          new Append(
              d,
              found.fileName(),
              Sha256.hex(read),
              CanonicalJson.render(next),
              entries,
              reapplied,
              runs,
              note));
    }
    if (before.isPresent() && !before.get().fileName().equals(found.fileName())) {
      // The network is in another file now: the entries come out of the one it was in.
      ChainAction out = takeOut(d.network(), before.get(), files);
      if (out instanceof Unappend) {
        actions.add(out);
      }
    }
    return actions;
  }

  /**
   * The agent's drop-ins of {@code network} to remove: those still as it wrote them; the others,
   * changed by someone since, are left where they are.
   */
  private static ChainAction removeDropIns(
      String network, DropIns.Files written, LibcniNetworks.Directory observed) {
    SortedMap<String, byte[]> onDisk =
        observed.dropIns().getOrDefault(written.target(), new TreeMap<>());
    List<String> ours = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    written
        .files()
        .forEach(
            (name, sha) -> {
              byte[] disk = onDisk.get(name);
              if (disk != null) {
                (Sha256.hex(disk).equals(sha) ? ours : changed).add(name);
              }
            });
    return new RemoveDropIns(network, written.target(), ours, changed);
  }

  /**
   * One drop-in per declared entry, {@code <its own file's name>.<nn>.conf}: libcni appends the
   * directory's files in file-name order, so the entries run in the order they were declared.
   */
  static SortedMap<String, byte[]> dropInFiles(DesiredConflist d) {
    String base = d.fileName().substring(0, d.fileName().length() - ".conflist".length());
    SortedMap<String, byte[]> files = new TreeMap<>();
    ArrayNode entries = declaredEntries(d);
    for (int i = 0; i < entries.size(); i++) {
      files.put(String.format("%s.%02d.conf", base, i), CanonicalJson.render(entries.get(i)));
    }
    return files;
  }

  /** {@code dir} without the drop-in files the agent wrote. */
  private static LibcniNetworks.Directory withoutAgents(
      LibcniNetworks.Directory dir, DropIns dropIns) {
    Map<String, SortedMap<String, byte[]>> in = copy(dir.dropIns());
    for (DropIns.Files f : dropIns.networks().values()) {
      SortedMap<String, byte[]> of = in.get(f.target());
      if (of != null) {
        f.files().keySet().forEach(of::remove);
      }
    }
    return new LibcniNetworks.Directory(dir.files(), in);
  }

  /** {@code foreign} with the drop-ins of every network to be held as drop-ins. */
  private static LibcniNetworks.Directory withPlanned(
      LibcniNetworks.Directory foreign,
      List<DesiredConflist> desired,
      Map<String, Placement> placements) {
    Map<String, SortedMap<String, byte[]>> in = copy(foreign.dropIns());
    for (DesiredConflist d : desired) {
      Placement p = placements.get(d.network());
      if (p.dropIn()) {
        in.computeIfAbsent(d.appendTo(), k -> new TreeMap<>()).putAll(p.files());
      }
    }
    return new LibcniNetworks.Directory(foreign.files(), in);
  }

  private static Map<String, SortedMap<String, byte[]>> copy(
      Map<String, SortedMap<String, byte[]>> dropIns) {
    Map<String, SortedMap<String, byte[]>> copy = new HashMap<>();
    dropIns.forEach((dir, files) -> copy.put(dir, new TreeMap<>(files)));
    return copy;
  }

  /** Takes the entries recorded in {@code chain} out of its file again. */
  private static ChainAction takeOut(
      String network, AppendedChain chain, SortedMap<String, byte[]> files) {
    byte[] read = files.get(chain.fileName());
    if (read == null) {
      return new Drop(network, chain.fileName() + " is gone");
    }
    Optional<ObjectNode> list = Appended.parse(read);
    if (list.isEmpty()) {
      // Perhaps half-written: the entries may be in it once it is whole.
      return new ChainAction.Later(
          network, chain.fileName(), chain.fileName() + " is not valid JSON now");
    }
    ObjectNode next = withoutDeclared(list.get(), Optional.of(entries(chain)), Set.of());
    if (Appended.same(next, list.get())) {
      return new Drop(network, "its entries are no longer in " + chain.fileName());
    }
    return new Unappend(network, chain.fileName(), Sha256.hex(read), CanonicalJson.render(next));
  }

  /**
   * {@code list} without the entries the agent declared onto it: those it recorded as appended, and
   * any of the declared types after the other product's first ({@link PluginSegments}).
   */
  private static ObjectNode withoutDeclared(
      ObjectNode list, Optional<List<JsonNode>> recorded, Set<String> types) {
    return PluginSegments.ofTarget(list, recorded.orElse(List.of()), types)
        .without(PluginSegments.Owner.DECLARED);
  }

  private static ArrayNode declaredEntries(DesiredConflist d) {
    return (ArrayNode)
        Appended.parse(d.bytes())
            .map(o -> o.get("plugins"))
            .filter(JsonNode::isArray)
            .orElseThrow(() -> new IllegalArgumentException(d.network() + " has no plugins"));
  }

  private static List<JsonNode> entries(AppendedChain chain) {
    Optional<ObjectNode> wrapped =
        Appended.parse(("{\"plugins\":" + chain.entries() + "}").getBytes(StandardCharsets.UTF_8));
    List<JsonNode> out = new ArrayList<>();
    wrapped.map(o -> o.get("plugins")).ifPresent(a -> a.forEach(out::add));
    return out;
  }

  private static Set<String> types(ArrayNode entries) {
    Set<String> types = new HashSet<>();
    entries.forEach(e -> types.add(e.path("type").asText()));
    return types;
  }
}
