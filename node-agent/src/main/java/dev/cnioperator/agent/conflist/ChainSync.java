package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.agent.conflist.ChainAction.Append;
import dev.cnioperator.agent.conflist.ChainAction.Drop;
import dev.cnioperator.agent.conflist.ChainAction.InPlace;
import dev.cnioperator.agent.conflist.ChainAction.Unappend;
import dev.cnioperator.agent.conflist.ChainAction.Waiting;
import dev.cnioperator.agent.host.AppendedChain;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.config.LibcniNetworks;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
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
   * @param desired the networks with {@code appendTo}, in spec order
   * @param heldBack networks that must not be (re)applied now, with the reason
   * @param pluginProblem why a network's plugins cannot run with a target's cniVersion, if they
   *     cannot
   * @param manifest what the agent appended before
   * @param dir the runtime's configuration directory, read: its files (.conf, .conflist, .json)
   *     with their content, and the drop-ins of its sub-directories
   */
  public List<ChainAction> plan(
      List<DesiredConflist> desired,
      Map<String, String> heldBack,
      BiFunction<DesiredConflist, String, Optional<String>> pluginProblem,
      Manifest manifest,
      LibcniNetworks.Directory dir) {
    SortedMap<String, byte[]> files = dir.files();
    List<ChainAction> actions = new ArrayList<>();
    Set<String> listed = new HashSet<>();
    for (DesiredConflist d : desired) {
      listed.add(d.network());
      actions.addAll(decide(d, heldBack, pluginProblem, manifest.chain(d.network()), dir));
    }
    for (Map.Entry<String, AppendedChain> e : manifest.chains().entrySet()) {
      if (!listed.contains(e.getKey())) {
        actions.add(takeOut(e.getKey(), e.getValue(), files));
      }
    }
    return actions;
  }

  private static List<ChainAction> decide(
      DesiredConflist d,
      Map<String, String> heldBack,
      BiFunction<DesiredConflist, String, Optional<String>> pluginProblem,
      Optional<AppendedChain> before,
      LibcniNetworks.Directory dir) {
    SortedMap<String, byte[]> files = dir.files();
    if (heldBack.containsKey(d.network())) {
      return List.of(new Waiting(d, heldBack.get(d.network())));
    }
    if (d.contentProblem().isPresent()) {
      return List.of(new Waiting(d, d.contentProblem().get()));
    }
    ChainTarget target = ChainTarget.resolve(d.appendTo(), dir);
    if (target instanceof ChainTarget.Absent a) {
      return List.of(new Waiting(d, a.why(), a.passing()));
    }
    ChainTarget.Found found = (ChainTarget.Found) target;
    Optional<String> problem = pluginProblem.apply(d, found.cniVersion());
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
    ArrayNode declared = declaredEntries(d);
    ObjectNode next = found.list().deepCopy();
    strip(next, before.map(ChainSync::entries).orElse(List.of()), types(declared));
    declared.forEach(e -> next.withArray("plugins").add(e.deepCopy()));
    byte[] read = files.get(found.fileName());
    String entries = new String(CanonicalJson.render(declared), StandardCharsets.UTF_8);
    List<ChainAction> actions = new ArrayList<>();
    byte[] runs = CanonicalJson.render(found.runs(next));
    if (Appended.same(next, found.list())) {
      actions.add(new InPlace(d, found.fileName(), read, entries, runs));
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
              runs));
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
    ObjectNode next = list.get().deepCopy();
    strip(next, entries(chain), Set.of());
    if (Appended.same(next, list.get())) {
      return new Drop(network, "its entries are no longer in " + chain.fileName());
    }
    return new Unappend(network, chain.fileName(), Sha256.hex(read), CanonicalJson.render(next));
  }

  /**
   * Removes from {@code list}'s plugins, after the first (the other product's own), every entry
   * equal to one of {@code appended} or of one of {@code types}.
   */
  private static void strip(ObjectNode list, List<JsonNode> appended, Set<String> types) {
    ArrayNode plugins = list.withArray("plugins");
    for (int i = plugins.size() - 1; i >= 1; i--) {
      JsonNode entry = plugins.get(i);
      if (types.contains(entry.path("type").asText())
          || appended.stream().anyMatch(a -> Appended.same(a, entry))) {
        plugins.remove(i);
      }
    }
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
