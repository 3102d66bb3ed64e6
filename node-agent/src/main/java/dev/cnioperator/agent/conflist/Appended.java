package dev.cnioperator.agent.conflist;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.config.CanonicalJson;
import dev.cnioperator.cni.io.CniJson;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Plugin entries another installer appended after the agent's own chain in one of its conflists:
 * what Istio's {@code install-cni}, {@code linkerd-cni} and other chaining installers do to the pod
 * network's file (they read it, add their entry at the end of {@code plugins} and write it back,
 * re-marshalled). Such a file is the agent's content plus theirs, not drift: the agent keeps the
 * entries and carries them into each new revision it writes, so the file never lacks them.
 *
 * <p>Compared as JSON values, not bytes: an installer that re-marshals the file (Go sorts the keys
 * of a map, drops the indent, writes {@code 1.0} as {@code 1}) changes no entry. The agent's own
 * entries must be there unchanged and in order, and every top-level field but {@code plugins}
 * unchanged; anything else (an own entry edited, reordered, removed, a plugin put before or between
 * them) is drift.
 *
 * @param plugins the appended entries, in file order; empty when nothing was appended
 */
public record Appended(List<JsonNode> plugins) {
  public static final Appended NONE = new Appended(List.of());

  public Appended {
    plugins = List.copyOf(plugins);
  }

  public boolean isEmpty() {
    return plugins.isEmpty();
  }

  /** The {@code type} of each appended entry, in file order ({@code "?"} where it has none). */
  public List<String> types() {
    return plugins.stream()
        .map(p -> p.path("type"))
        .map(t -> t.isTextual() ? t.textValue() : "?")
        .toList();
  }

  /**
   * What was appended to {@code own} (a conflist the agent wrote) to make {@code disk}; empty when
   * {@code disk} is not {@code own} plus appended entries, or is not JSON at all.
   */
  public static Optional<Appended> after(String own, byte[] disk) {
    return after(parse(own.getBytes(StandardCharsets.UTF_8)), parse(disk));
  }

  /**
   * As {@link #after(String, byte[])}, on conflists already parsed with {@link #parse}: a caller
   * that compares one file with many (the CHECK round, each attachment's cached chain against the
   * network's file) parses each once.
   */
  public static Optional<Appended> after(Optional<ObjectNode> own, Optional<ObjectNode> disk) {
    if (own.isEmpty() || disk.isEmpty()) {
      return Optional.empty();
    }
    return PluginSegments.ofOwn(own.get(), disk.get())
        .map(s -> new Appended(s.of(PluginSegments.Owner.APPENDED)));
  }

  /** The bytes of {@code desired} with these entries after its own plugins. */
  public byte[] onto(DesiredConflist desired) {
    if (plugins.isEmpty()) {
      return desired.bytes();
    }
    ObjectNode list =
        parse(desired.bytes())
            .orElseThrow(
                () -> new IllegalArgumentException(desired.fileName() + " is not a JSON object"));
    ArrayNode own = list.withArray("plugins");
    plugins.forEach(p -> own.add(p.deepCopy()));
    return CanonicalJson.render(list);
  }

  /** Equal as JSON values: key order, whitespace and the form of a number do not count. */
  public static boolean same(JsonNode a, JsonNode b) {
    return b != null && Arrays.equals(CanonicalJson.render(a), CanonicalJson.render(b));
  }

  /** {@code json} as a JSON object; empty when it is none (or null). */
  public static Optional<ObjectNode> parse(byte[] json) {
    return CniJson.object(json);
  }
}
