package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks a network configuration list against SPEC-1.1.0.md Section 1 and reports every problem
 * found, each with its JSON path and rule id. The list-level keys are checked here; each plugin
 * object is checked by {@link PluginConfigValidator}.
 *
 * <p>Rules decided beyond the spec's words (each also says why where it is checked):
 *
 * <ul>
 *   <li>{@code cniVersion} is required and must be a version this runtime speaks (0.3.0 to 1.1.0):
 *       a list needs chaining, which 0.3.0 introduced.
 *   <li>{@code cniVersions} may stand beside any {@code cniVersion}: a runtime selects "the highest
 *       supported version from the set ... given by the cniVersion and cniVersions fields"
 *       (SPEC-1.1.0.md Section 1, "Version considerations"), so {@code cniVersion: "1.0.0"} with
 *       {@code cniVersions: ["1.0.0", "1.1.0"]} serves a runtime that reads cniVersion alone
 *       (libcni before 1.2, containerd before 2.0) at 1.0.0 and a newer one at 1.1.0; libcni 1.2+
 *       selects the same way. Its entries must be well-formed versions; versions newer than this
 *       runtime are allowed and skipped at selection (that is what the key is for, and libcni does
 *       the same); older unknown or unsupported ones are refused.
 *   <li>{@code disableCheck: true} needs a declared version 0.4.0+ (CHECK came with 0.4.0) and
 *       {@code disableGC: true} needs 1.1.0 (GC came with 1.1.0): without one, they would promise
 *       something the network cannot do. The highest version of cniVersion and cniVersions counts,
 *       as a runtime that speaks it selects it. {@code false} is always accepted. Like libcni, the
 *       strings "true"/"false" are accepted for both.
 *   <li>The reserved keys are refused at the list's top level too, not only in plugin objects.
 * </ul>
 */
public final class ConfigValidator {
  /** SPEC-1.1.0.md Section 1, "name". */
  static final Pattern NAME = Pattern.compile("^[a-zA-Z0-9][a-zA-Z0-9_.\\-]*$");

  private ConfigValidator() {}

  /** Every problem of {@code conflist}; empty when it is a valid configuration list. */
  public static List<ConfigProblem> validate(ObjectNode conflist) {
    List<ConfigProblem> problems = new ArrayList<>();
    Optional<ConfigProblem> tooDeep = NestingDepth.check(conflist);
    if (tooDeep.isPresent()) {
      // Nothing else is checked: rendering or comparing such a tree would recurse that deep.
      problems.add(tooDeep.get());
      return problems;
    }
    checkName(conflist, problems);
    Optional<CniVersion> version = checkVersion(conflist, problems);
    Optional<CniVersion> highest = checkVersions(conflist, version, problems);
    checkFlag(
        conflist,
        "disableCheck",
        CniVersion.V0_4_0,
        ConflistRule.CHECK_VERSION,
        "CHECK",
        highest,
        problems);
    checkFlag(
        conflist, "disableGC", CniVersion.V1_1_0, ConflistRule.GC_VERSION, "GC", highest, problems);
    PluginConfigValidator.checkReservedKeys(conflist, "", problems);
    checkPlugins(conflist, problems);
    return problems;
  }

  private static void checkName(ObjectNode list, List<ConfigProblem> problems) {
    JsonNode name = list.get("name");
    if (name == null) {
      problems.add(
          new ConfigProblem("name", ConflistRule.MISSING_NAME, "the network name is missing"));
    } else if (!name.isTextual()) {
      problems.add(wrongType("name", "a string", name));
    } else if (!NAME.matcher(name.textValue()).matches()) {
      problems.add(
          new ConfigProblem(
              "name",
              ConflistRule.NAME_PATTERN,
              "network name "
                  + quote(name.textValue())
                  + " must start with a letter or digit, followed by letters, digits, '_', '.' or"
                  + " '-'"));
    }
  }

  private static Optional<CniVersion> checkVersion(ObjectNode list, List<ConfigProblem> problems) {
    JsonNode node = list.get("cniVersion");
    if (node == null) {
      problems.add(
          new ConfigProblem(
              "cniVersion",
              ConflistRule.MISSING_VERSION,
              "cniVersion is missing; use one of " + supported()));
      return Optional.empty();
    }
    if (!node.isTextual()) {
      problems.add(wrongType("cniVersion", "a string", node));
      return Optional.empty();
    }
    return supportedVersion("cniVersion", node.textValue(), problems);
  }

  /** The version if this runtime speaks it, else a problem saying why not. */
  static Optional<CniVersion> supportedVersion(
      String path, String text, List<ConfigProblem> problems) {
    Optional<CniVersion> version = CniVersion.parse(text);
    if (version.isEmpty()) {
      problems.add(
          new ConfigProblem(
              path,
              ConflistRule.UNKNOWN_VERSION,
              "CNI version " + quote(text) + " is not known; use one of " + supported()));
    } else if (!version.get().isSupported()) {
      problems.add(
          new ConfigProblem(
              path,
              ConflistRule.UNSUPPORTED_VERSION,
              "CNI version "
                  + text
                  + " has no plugin chaining (it came with 0.3.0); use one of "
                  + supported()));
      return Optional.empty();
    }
    return version;
  }

  /**
   * Checks {@code cniVersions}; returns the highest version of it and {@code cniVersion} that this
   * runtime speaks (the one it selects), or {@code cniVersion}'s when cniVersions is absent.
   */
  private static Optional<CniVersion> checkVersions(
      ObjectNode list, Optional<CniVersion> declared, List<ConfigProblem> problems) {
    JsonNode node = list.get("cniVersions");
    if (node == null) {
      return declared;
    }
    if (!node.isArray()) {
      problems.add(wrongType("cniVersions", "an array of version strings", node));
      return declared;
    }
    Optional<CniVersion> highest = declared;
    if (node.isEmpty()) {
      problems.add(
          new ConfigProblem(
              "cniVersions",
              ConflistRule.CNI_VERSIONS,
              "cniVersions is empty; list versions or leave it out"));
    }
    for (int i = 0; i < node.size(); i++) {
      String path = JsonPath.index("cniVersions", i);
      JsonNode entry = node.get(i);
      if (!entry.isTextual()) {
        problems.add(wrongType(path, "a version string", entry));
      } else if (!isNewerThanRuntime(entry.textValue())) {
        Optional<CniVersion> v = supportedVersion(path, entry.textValue(), problems);
        if (v.isPresent() && (highest.isEmpty() || v.get().compareTo(highest.get()) > 0)) {
          highest = v;
        }
      }
    }
    return highest;
  }

  /**
   * A well-formed version above {@link CniVersion#LATEST}: allowed in cniVersions, where a
   * configuration names versions a future runtime may pick (SPEC-1.1.0.md Section 1, "Version
   * considerations"); libcni skips those too.
   */
  static boolean isNewerThanRuntime(String text) {
    return CniVersion.parse(text, CniVersion.Strictness.SEMVER)
        .filter(v -> v.compareTo(CniVersion.LATEST) > 0)
        .isPresent();
  }

  private static void checkFlag(
      ObjectNode list,
      String key,
      CniVersion since,
      ConflistRule rule,
      String verb,
      Optional<CniVersion> version,
      List<ConfigProblem> problems) {
    JsonNode node = list.get(key);
    if (node == null) {
      return;
    }
    Optional<Boolean> value = readFlag(node);
    if (value.isEmpty()) {
      problems.add(wrongType(key, "true or false", node));
    } else if (value.get() && version.isPresent() && !version.get().isAtLeast(since)) {
      problems.add(
          new ConfigProblem(
              key,
              rule,
              key
                  + " needs cniVersion "
                  + since
                  + " or later ("
                  + verb
                  + " came with "
                  + since
                  + "); a "
                  + version.get()
                  + " network never runs "
                  + verb));
    }
  }

  /** A boolean, or the strings "true"/"false" in any case (libcni's readBool accepts those). */
  static Optional<Boolean> readFlag(JsonNode node) {
    if (node.isBoolean()) {
      return Optional.of(node.booleanValue());
    }
    if (node.isTextual()) {
      String s = node.textValue();
      if (s.equalsIgnoreCase("true")) {
        return Optional.of(true);
      }
      if (s.equalsIgnoreCase("false")) {
        return Optional.of(false);
      }
    }
    return Optional.empty();
  }

  private static void checkPlugins(ObjectNode list, List<ConfigProblem> problems) {
    JsonNode plugins = list.get("plugins");
    if (plugins == null || (plugins.isArray() && plugins.isEmpty())) {
      problems.add(
          new ConfigProblem(
              "plugins",
              ConflistRule.EMPTY_PLUGINS,
              "a configuration list needs at least one plugin"));
      return;
    }
    if (!plugins.isArray()) {
      problems.add(wrongType("plugins", "an array of plugin objects", plugins));
      return;
    }
    JsonNode name = list.get("name");
    JsonNode cniVersion = list.get("cniVersion");
    for (int i = 0; i < plugins.size(); i++) {
      PluginConfigValidator.check(
          plugins.get(i), JsonPath.index("plugins", i), name, cniVersion, problems);
    }
  }

  static ConfigProblem wrongType(String path, String expected, JsonNode actual) {
    return new ConfigProblem(
        path, ConflistRule.WRONG_TYPE, path + " must be " + expected + ", not " + describe(actual));
  }

  private static String describe(JsonNode node) {
    return switch (node.getNodeType()) {
      case OBJECT -> "an object";
      case ARRAY -> "an array";
      case STRING -> "the string " + quote(node.textValue());
      case NUMBER -> "the number " + node.asText();
      case BOOLEAN -> node.asText();
      case NULL -> "null";
      default -> node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    };
  }

  static String quote(String s) {
    String shown = s.length() > 80 ? s.substring(0, 80) + "..." : s;
    return JsonText.quoted(shown);
  }

  private static String supported() {
    return CniVersion.SUPPORTED.toString();
  }
}
