package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Whether libcni 1.3 loads a configuration file: a {@code .conflist} as its {@code
 * ConfListFromFile} does, any other file as its {@code ConfFromFile} does. These two are all that
 * stands between a file and a program that reads a whole directory with them: Multus (v4.2, on
 * libcni 1.3.0) runs them on every {@code .conf}, {@code .conflist} and {@code .json} file of its
 * configuration directory, in file-name order, when it looks up a NetworkAttachmentDefinition
 * without a config, and the first file that fails ends the lookup with an error.
 *
 * <p>They check far less than {@link ConfigValidator}, and this checks exactly what they check, so
 * that a file reported here is one they refuse: JSON (libcni's decoder, as {@link ConfigJson} reads
 * it), the types of the keys they decode (case-insensitively, as Go's decoder matches struct
 * fields), a string {@code name} and at least one plugin with a {@code type} in a list, a {@code
 * type} in a single configuration, and the plugin files a list takes from {@code <dir>/<name>/}
 * unless it sets {@code loadOnlyInlinedPlugins}. The messages follow libcni's. {@code
 * LibcniConfigFileIT} holds the verdicts against libcni's own {@code cnitool} 1.3.0.
 */
public final class LibcniConfigFile {
  private static final String LIST = "error parsing configuration list: ";
  private static final String PLUGIN = "error parsing configuration: ";
  private static final Pattern VERSION_PART = Pattern.compile("[+-]?[0-9]+");

  /** The Go type of each field libcni's PluginConf decodes, by its JSON name. */
  private static final Map<String, Kind> PLUGIN_FIELDS =
      Map.of(
          "cniVersion", Kind.STRING,
          "name", Kind.STRING,
          "type", Kind.STRING,
          "capabilities", Kind.BOOL_MAP,
          "ipam", Kind.IPAM,
          "dns", Kind.DNS,
          "prevResult", Kind.ANY_MAP,
          "cni.dev/valid-attachments", Kind.ATTACHMENTS);

  private static final Map<String, Kind> IPAM_FIELDS = Map.of("type", Kind.STRING);
  private static final Map<String, Kind> DNS_FIELDS =
      Map.of(
          "nameservers", Kind.STRINGS,
          "domain", Kind.STRING,
          "search", Kind.STRINGS,
          "options", Kind.STRINGS);
  private static final Map<String, Kind> ATTACHMENT_FIELDS =
      Map.of("containerID", Kind.STRING, "ifname", Kind.STRING);

  private enum Kind {
    STRING,
    STRINGS,
    BOOL_MAP,
    ANY_MAP,
    IPAM,
    DNS,
    ATTACHMENTS
  }

  /** libcni refuses the file, with its words. */
  private static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  private LibcniConfigFile() {}

  /** Why libcni 1.3 does not load {@code file}, or empty when it does. */
  public static Optional<String> problem(Path file) {
    try {
      if (extension(file.getFileName().toString()).equals(".conflist")) {
        confList(file);
      } else {
        pluginConf(json(read(file), PLUGIN), false);
      }
      return Optional.empty();
    } catch (Refused e) {
      return Optional.of(e.getMessage());
    }
  }

  /** Go's {@code filepath.Ext}: the suffix from the last dot of the name, or "". */
  public static String extension(String fileName) {
    int dot = fileName.lastIndexOf('.');
    return dot < 0 ? "" : fileName.substring(dot);
  }

  /** libcni's {@code NetworkConfFromFile}. */
  private static void confList(Path file) throws Refused {
    JsonNode root = json(read(file), LIST);
    requireFloat64(root, LIST);
    if (!root.isObject() && !root.isNull()) {
      throw new Refused(
          LIST
              + "json: cannot unmarshal "
              + jsonKind(root)
              + " into Go value of type map[string]interface {}");
    }
    JsonNode name = root.get("name");
    if (name == null) {
      throw new Refused(LIST + "no name");
    }
    if (!name.isTextual()) {
      throw new Refused(LIST + "invalid name type " + goType(name));
    }
    JsonNode version = root.get("cniVersion");
    if (version != null && !version.isTextual()) {
      throw new Refused(LIST + "invalid cniVersion type " + goType(version));
    }
    versions(root.get("cniVersions"), version == null ? "" : version.textValue());
    readBool(root, "disableCheck");
    readBool(root, "disableGC");
    boolean inlinedOnly = readBool(root, "loadOnlyInlinedPlugins");
    int plugins = 0;
    JsonNode list = root.get("plugins");
    if (list == null && inlinedOnly) {
      throw new Refused(LIST + "`loadOnlyInlinedPlugins` is true, and no 'plugins' key");
    }
    if (list != null) {
      if (!list.isArray()) {
        throw new Refused(LIST + "invalid 'plugins' type " + goType(list));
      }
      if (list.isEmpty()) {
        throw new Refused(LIST + "no plugins in list");
      }
      for (int i = 0; i < list.size(); i++) {
        try {
          // libcni marshals each element again before decoding it: Go writes map keys sorted.
          pluginConf(list.get(i), true);
        } catch (Refused e) {
          throw new Refused("failed to parse plugin config " + i + ": " + e.getMessage());
        }
      }
      plugins = list.size();
    }
    if (!inlinedOnly) {
      plugins += pluginFiles(file.getParent(), name.textValue());
    }
    if (plugins == 0) {
      throw new Refused("no plugin configs found");
    }
  }

  /**
   * libcni's {@code NetworkPluginConfsFromFiles}: every {@code .conf} of {@code <dir>/<name>} is a
   * plugin of the list. Go's {@code filepath.Join} cleans the path, so an empty name is {@code dir}
   * itself.
   */
  private static int pluginFiles(Path dir, String name) throws Refused {
    Path sub;
    try {
      sub = Path.of(dir + "/" + name).normalize();
    } catch (InvalidPathException e) {
      throw new Refused("failed to read plugin config files in " + dir + "/" + name + ": " + e);
    }
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(sub)) {
      for (Path p : entries) {
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
            && extension(p.getFileName().toString()).equals(".conf")) {
          files.add(p);
        }
      }
    } catch (NoSuchFileException e) {
      return 0;
    } catch (IOException e) {
      throw new Refused("failed to read plugin config files in " + sub + ": " + e);
    }
    files.sort((a, b) -> JsonText.compareCodePoints(a.toString(), b.toString()));
    for (Path f : files) {
      pluginConf(json(read(f), PLUGIN), false);
    }
    return files.size();
  }

  /**
   * libcni's {@code NetworkPluginConfFromBytes}: decoded into its PluginConf struct, which must end
   * with a type. Go reports the first field of a wrong type, after decoding the rest.
   *
   * @param sortedKeys whether Go sees the keys in sorted order (a list's plugin, marshalled again)
   */
  private static void pluginConf(JsonNode plugin, boolean sortedKeys) throws Refused {
    if (plugin.isNull()) {
      throw new Refused(PLUGIN + "missing 'type'");
    }
    if (!plugin.isObject()) {
      throw new Refused(
          PLUGIN
              + "json: cannot unmarshal "
              + jsonKind(plugin)
              + " into Go value of type types.PluginConf");
    }
    List<Map.Entry<String, JsonNode>> members = new ArrayList<>(plugin.properties());
    if (sortedKeys) {
      members.sort(Map.Entry.comparingByKey(JsonText::compareCodePoints));
    }
    String type = "";
    String mistyped = null;
    for (Map.Entry<String, JsonNode> m : members) {
      Optional<String> field = field(PLUGIN_FIELDS, m.getKey());
      if (field.isEmpty()) {
        continue;
      }
      JsonNode value = m.getValue();
      String error = typeError("PluginConf." + field.get(), PLUGIN_FIELDS.get(field.get()), value);
      mistyped = mistyped == null ? error : mistyped;
      if (error == null && field.get().equals("type") && value.isTextual()) {
        type = value.textValue();
      }
    }
    if (mistyped != null) {
      throw new Refused(PLUGIN + mistyped);
    }
    if (type.isEmpty()) {
      throw new Refused(PLUGIN + "missing 'type'");
    }
  }

  /**
   * The struct field a JSON key decodes into: Go prefers an exact match of the name, and takes a
   * case-insensitive one otherwise.
   */
  private static Optional<String> field(Map<String, Kind> fields, String key) {
    if (fields.containsKey(key)) {
      return Optional.of(key);
    }
    return fields.keySet().stream().filter(f -> f.equalsIgnoreCase(key)).findFirst();
  }

  /** The first type error Go's decoder reports for {@code value} as {@code kind}, or null. */
  private static String typeError(String path, Kind kind, JsonNode value) {
    if (value.isNull()) {
      return null; // Go leaves a field it decodes null into as it is
    }
    switch (kind) {
      case STRING:
        return value.isTextual() ? null : mismatch(value, path, "string");
      case STRINGS:
        return elements(path, value, value.isArray(), "[]string", JsonNode::isTextual, "string");
      case BOOL_MAP:
        return elements(
            path, value, value.isObject(), "map[string]bool", JsonNode::isBoolean, "bool");
      case ANY_MAP:
        if (!value.isObject()) {
          return mismatch(value, path, "map[string]interface {}");
        }
        return float64Error(value);
      case IPAM:
        return struct(path, IPAM_FIELDS, value, "types.IPAM");
      case DNS:
        return struct(path, DNS_FIELDS, value, "types.DNS");
      case ATTACHMENTS:
        if (!value.isArray()) {
          return mismatch(value, path, "[]types.GCAttachment");
        }
        for (JsonNode e : value) {
          String error = struct(path, ATTACHMENT_FIELDS, e, "types.GCAttachment");
          if (error != null) {
            return error;
          }
        }
        return null;
      default:
        throw new IllegalStateException("unknown kind " + kind);
    }
  }

  /** A list or map whose elements are each null or {@code ok}. */
  private static String elements(
      String path,
      JsonNode value,
      boolean container,
      String type,
      Predicate<JsonNode> ok,
      String elementType) {
    if (!container) {
      return mismatch(value, path, type);
    }
    for (JsonNode e : value) {
      if (!e.isNull() && !ok.test(e)) {
        return mismatch(e, path, elementType);
      }
    }
    return null;
  }

  private static String struct(String path, Map<String, Kind> fields, JsonNode value, String type) {
    if (value.isNull()) {
      return null;
    }
    if (!value.isObject()) {
      return mismatch(value, path, type);
    }
    for (Map.Entry<String, JsonNode> m : value.properties()) {
      Optional<String> field = field(fields, m.getKey());
      if (field.isPresent()) {
        String error = typeError(path + "." + field.get(), fields.get(field.get()), m.getValue());
        if (error != null) {
          return error;
        }
      }
    }
    return null;
  }

  private static String mismatch(JsonNode value, String path, String goType) {
    return "json: cannot unmarshal "
        + jsonKind(value)
        + " into Go struct field "
        + path
        + " of type "
        + goType;
  }

  /** libcni's reading of a list's {@code cniVersions}, and of its cniVersion beside them. */
  private static void versions(JsonNode versions, String cniVersion) throws Refused {
    if (versions == null) {
      return;
    }
    if (!versions.isArray()) {
      throw new Refused(LIST + "invalid type for cniVersions: []interface {}");
    }
    for (int i = 0; i < versions.size(); i++) {
      JsonNode v = versions.get(i);
      if (!v.isTextual()) {
        throw new Refused(LIST + "invalid type for cniVersions index " + i + ": " + goType(v));
      }
      Optional<String> bad = versionProblem(v.textValue());
      if (bad.isPresent()) {
        throw new Refused(
            LIST
                + "invalid cniVersions entry "
                + v.textValue()
                + " at index "
                + i
                + ": "
                + bad.get());
      }
    }
    if (!cniVersion.isEmpty()) {
      Optional<String> bad = versionProblem(cniVersion);
      if (bad.isPresent()) {
        throw new Refused(LIST + "invalid cniVersion " + cniVersion + ": " + bad.get());
      }
    }
  }

  /** libcni's {@code ParseVersion}: up to three dot-separated parts, each a Go {@code Atoi}. */
  private static Optional<String> versionProblem(String version) {
    if (version.isEmpty()) {
      return Optional.empty();
    }
    String[] parts = version.split("\\.", -1);
    if (parts.length >= 4) {
      return Optional.of("invalid version \"" + version + "\": too many parts");
    }
    String[] names = {"major", "minor", "micro"};
    for (int i = 0; i < parts.length; i++) {
      if (!VERSION_PART.matcher(parts[i]).matches() || !fitsInt64(parts[i])) {
        return Optional.of("failed to convert " + names[i] + " version part \"" + parts[i] + "\"");
      }
    }
    return Optional.empty();
  }

  private static boolean fitsInt64(String digits) {
    try {
      Long.parseLong(digits);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** libcni's {@code readBool}: a JSON boolean, or the string "true" or "false" in any case. */
  private static boolean readBool(JsonNode list, String key) throws Refused {
    JsonNode value = list.get(key);
    if (value == null) {
      return false;
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    if (!value.isTextual()) {
      throw new Refused(LIST + "invalid type " + goType(value) + " for " + key);
    }
    String s = value.textValue().toLowerCase(Locale.ROOT);
    if (s.equals("true") || s.equals("false")) {
      return s.equals("true");
    }
    throw new Refused(LIST + "invalid value \"" + s + "\" for " + key);
  }

  /**
   * Go decodes a number into an interface value as a float64, and refuses one beyond its range; a
   * list is decoded whole that way.
   */
  private static void requireFloat64(JsonNode node, String prefix) throws Refused {
    String error = float64Error(node);
    if (error != null) {
      throw new Refused(prefix + error);
    }
  }

  private static String float64Error(JsonNode node) {
    if (node.isNumber()) {
      return Double.isInfinite(node.doubleValue())
          ? "json: cannot unmarshal number " + node.asText() + " into Go value of type float64"
          : null;
    }
    for (JsonNode child : node) {
      String error = float64Error(child);
      if (error != null) {
        return error;
      }
    }
    return null;
  }

  private static JsonNode json(byte[] bytes, String prefix) throws Refused {
    try {
      return ConfigJson.read(bytes, "the file");
    } catch (CniConfigException e) {
      String what = e.problems().isEmpty() ? e.getMessage() : e.problems().get(0).message();
      throw new Refused(prefix + what);
    }
  }

  private static byte[] read(Path file) throws Refused {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new Refused("error reading " + file + ": " + e);
    }
  }

  /** The noun Go's decoder uses for a JSON value in its errors. */
  private static String jsonKind(JsonNode node) {
    return describe(node, "string", "number", "bool", "array", "object");
  }

  /** What Go's {@code %T} prints for a value decoded into an interface. */
  private static String goType(JsonNode node) {
    return node.isNull()
        ? "<nil>"
        : describe(node, "string", "float64", "bool", "[]interface {}", "map[string]interface {}");
  }

  private static String describe(
      JsonNode node, String string, String number, String bool, String array, String object) {
    if (node.isTextual()) {
      return string;
    }
    if (node.isNumber()) {
      return number;
    }
    if (node.isBoolean()) {
      return bool;
    }
    return node.isArray() ? array : object;
  }
}
