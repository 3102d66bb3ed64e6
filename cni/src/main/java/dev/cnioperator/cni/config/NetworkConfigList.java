package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.io.Sha256;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A validated network configuration list (SPEC-1.1.0.md Section 1), immutable: its typed list-level
 * fields, its plugins, the raw JSON it came from (unknown keys kept), and its canonical bytes and
 * their sha256.
 *
 * <p>Every factory validates with {@link ConfigValidator} and throws {@link CniConfigException}
 * with all problems found, so a {@code NetworkConfigList} that exists is valid.
 */
public final class NetworkConfigList {
  private static final String LIST = "network configuration list";

  private final ObjectNode raw;
  private final byte[] bytes;
  private final byte[] rendered;
  private final String sha256;
  private final String name;
  private final CniVersion cniVersion;
  private final List<CniVersion> cniVersions;
  private final boolean disableCheck;
  private final boolean disableGC;
  private final List<PluginConfig> plugins;
  private final List<String> pluginBinaries;

  private NetworkConfigList(ObjectNode raw, byte[] bytes) {
    this.raw = raw;
    this.rendered = CanonicalJson.render(raw);
    this.bytes = bytes == null ? rendered : bytes.clone();
    this.sha256 = Sha256.hex(rendered);
    this.name = raw.get("name").textValue();
    this.cniVersion = CniVersion.parse(raw.get("cniVersion").textValue()).orElseThrow();
    List<CniVersion> versions = new ArrayList<>();
    JsonNode declared = raw.get("cniVersions");
    if (declared != null) {
      declared.forEach(
          v ->
              versions.add(
                  CniVersion.parse(v.textValue(), CniVersion.Strictness.SEMVER).orElseThrow()));
    }
    this.cniVersions = List.copyOf(versions);
    this.disableCheck = flag(raw, "disableCheck");
    this.disableGC = flag(raw, "disableGC");
    List<PluginConfig> views = new ArrayList<>();
    raw.get("plugins").forEach(p -> views.add(new PluginConfig(((ObjectNode) p).deepCopy())));
    this.plugins = List.copyOf(views);
    TreeSet<String> binaries = new TreeSet<>();
    for (PluginConfig p : plugins) {
      binaries.add(p.type());
      p.ipamType().ifPresent(binaries::add);
    }
    this.pluginBinaries = List.copyOf(binaries);
  }

  /** Parses and validates a configuration list ({@code .conflist} content). */
  public static NetworkConfigList parse(byte[] json) {
    return parse(json, LIST);
  }

  /**
   * Parses and validates a configuration list; {@code source} (a file name, say) names it in
   * errors.
   */
  public static NetworkConfigList parse(byte[] json, String source) {
    return parse(json, source, ValidationLevel.FULL);
  }

  /**
   * As {@link #parse(byte[], String)}, refusing only what {@code level} refuses ({@link
   * ValidationLevel#EXECUTABLE} for configurations other tools wrote).
   */
  public static NetworkConfigList parse(byte[] json, String source, ValidationLevel level) {
    ObjectNode list = requireObject(ConfigJson.read(json, source), source);
    return validated(list, json, source, level);
  }

  /**
   * Reads a legacy single-plugin {@code .conf} (CNI 0.x, before 1.0.0 removed it) as a list of that
   * one plugin, as libcni's {@code ConfListFromConf} does: the list's {@code name} and {@code
   * cniVersion} are the plugin's own, and the plugin object is kept whole. Problems are reported
   * with paths into the {@code .conf} itself ({@code ipam.type}, not {@code plugins[0].ipam.type}).
   */
  public static NetworkConfigList parseLegacyConf(byte[] json) {
    return parseLegacyConf(json, "network configuration");
  }

  /** As {@link #parseLegacyConf(byte[])}; {@code source} names the file in errors. */
  public static NetworkConfigList parseLegacyConf(byte[] json, String source) {
    return parseLegacyConf(json, source, ValidationLevel.FULL);
  }

  /** As {@link #parseLegacyConf(byte[], String)}, refusing only what {@code level} refuses. */
  public static NetworkConfigList parseLegacyConf(
      byte[] json, String source, ValidationLevel level) {
    ObjectNode plugin = requireObject(ConfigJson.read(json, source), source);
    ObjectNode list = JsonNodeFactory.instance.objectNode();
    copyIfPresent(plugin, list, "cniVersion");
    copyIfPresent(plugin, list, "name");
    list.putArray("plugins").add(plugin);
    List<ConfigProblem> problems = refused(list, level);
    if (!problems.isEmpty()) {
      throw CniConfigException.invalid(source, problems.stream().map(p -> reroot(p)).toList());
    }
    return new NetworkConfigList(list, null);
  }

  /** Validates a configuration list built in memory (the operator renders from a CniNetwork). */
  public static NetworkConfigList fromJson(ObjectNode json) {
    // Before the copy: copying a tree too deep for any parser would itself overflow the stack.
    NestingDepth.check(json)
        .ifPresent(
            tooDeep -> {
              throw CniConfigException.invalid(LIST, List.of(tooDeep));
            });
    return validated(json.deepCopy(), null, LIST, ValidationLevel.FULL);
  }

  private static NetworkConfigList validated(
      ObjectNode list, byte[] bytes, String source, ValidationLevel level) {
    List<ConfigProblem> problems = refused(list, level);
    if (!problems.isEmpty()) {
      throw CniConfigException.invalid(source, problems);
    }
    return new NetworkConfigList(list, bytes);
  }

  private static List<ConfigProblem> refused(ObjectNode list, ValidationLevel level) {
    return ConfigValidator.validate(list).stream().filter(p -> level.refuses(p.rule())).toList();
  }

  private static ObjectNode requireObject(JsonNode node, String source) {
    if (node instanceof ObjectNode object) {
      return object;
    }
    throw CniConfigException.invalid(
        source,
        List.of(
            new ConfigProblem(
                "",
                ConflistRule.WRONG_TYPE,
                "a network configuration must be a JSON object, not " + node.getNodeType())));
  }

  private static void copyIfPresent(ObjectNode from, ObjectNode to, String key) {
    if (from.has(key)) {
      to.set(key, from.get(key).deepCopy());
    }
  }

  /** "plugins[0].ipam.type" becomes "ipam.type": the .conf is the plugin object. */
  private static ConfigProblem reroot(ConfigProblem problem) {
    String path = problem.path();
    if (path.equals("plugins[0]")) {
      return problem.withPath("");
    }
    if (path.startsWith("plugins[0].")) {
      return problem.withPath(path.substring("plugins[0].".length()));
    }
    if (path.startsWith("plugins[0][")) {
      return problem.withPath(path.substring("plugins[0]".length()));
    }
    return problem;
  }

  private static boolean flag(ObjectNode list, String key) {
    JsonNode node = list.get(key);
    return node != null && ConfigValidator.readFlag(node).orElse(false);
  }

  /** The network name ({@code name}). */
  public String name() {
    return name;
  }

  /** The declared {@code cniVersion}; {@link #selectVersion} says which one to execute with. */
  public CniVersion cniVersion() {
    return cniVersion;
  }

  /**
   * The declared {@code cniVersions}, in declared order, empty when absent; may hold versions newer
   * than this runtime, which selection skips.
   */
  public List<CniVersion> cniVersions() {
    return cniVersions;
  }

  /** When true, runtimes must not run CHECK for this network (SPEC-1.1.0.md Section 2). */
  public boolean disableCheck() {
    return disableCheck;
  }

  /** When true, runtimes must not run GC for this network (libcni's {@code disableGC}). */
  public boolean disableGC() {
    return disableGC;
  }

  public List<PluginConfig> plugins() {
    return plugins;
  }

  /**
   * Every plugin binary the list runs, each plugin's {@code type} and {@code ipam.type}, sorted and
   * once each: what a node must have in its CNI_PATH for this network.
   */
  public List<String> pluginBinaries() {
    return pluginBinaries;
  }

  /** A deep copy of the whole list as configured. */
  public ObjectNode raw() {
    return raw.deepCopy();
  }

  /**
   * The bytes this list was parsed from (what libcni keeps as {@code NetworkConfigList.Bytes} and
   * stores in its result cache); for lists built in memory or from a legacy {@code .conf}, the
   * canonical rendering.
   */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** The canonical bytes ({@link CanonicalJson}): the same list always renders the same. */
  public byte[] render() {
    return rendered.clone();
  }

  /** Hex SHA-256 of {@link #render()}. */
  public String sha256() {
    return sha256;
  }

  /** {@link VersionSelection#select(NetworkConfigList, Set)} for this list. */
  public CniVersion selectVersion(Set<CniVersion> supportedByAllPlugins) {
    return VersionSelection.select(this, supportedByAllPlugins);
  }

  /** Two lists are equal when their JSON values are equal (same canonical bytes). */
  @Override
  public boolean equals(Object o) {
    return o instanceof NetworkConfigList other && sha256.equals(other.sha256);
  }

  @Override
  public int hashCode() {
    return sha256.hashCode();
  }

  @Override
  public String toString() {
    return "NetworkConfigList[name="
        + name
        + ", cniVersion="
        + cniVersion
        + ", sha256="
        + sha256
        + "]";
  }
}
