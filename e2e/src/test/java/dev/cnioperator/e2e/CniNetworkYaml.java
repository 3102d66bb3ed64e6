package dev.cnioperator.e2e;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The YAML of a CniNetwork as the e2e tests apply it with kubectl: the fixed head, then what a test
 * sets. Plugins and spec entries are YAML text, nested keys indented by two.
 */
public final class CniNetworkYaml {
  private final String name;
  private Integer priority;
  private String nodeSelector;
  private final List<String> plugins = new ArrayList<>();
  private final List<String> specEntries = new ArrayList<>();

  private CniNetworkYaml(String name) {
    this.name = name;
  }

  public static CniNetworkYaml named(String name) {
    return new CniNetworkYaml(name);
  }

  public CniNetworkYaml priority(int value) {
    priority = value;
    return this;
  }

  /** {@code spec.nodeSelector}, such as {@code matchLabels: {k: v}}. */
  public CniNetworkYaml nodeSelector(String yaml) {
    nodeSelector = yaml;
    return this;
  }

  public CniNetworkYaml matchLabel(String key, String value) {
    return nodeSelector("matchLabels: {" + key + ": " + value + "}");
  }

  /** One plugin's configuration, such as {@code "type: ptp\nipam: {...}"}. */
  public CniNetworkYaml plugin(String yaml) {
    plugins.add(yaml);
    return this;
  }

  /** One more entry of the spec, such as {@code check: {enabled: false}}. */
  public CniNetworkYaml spec(String yaml) {
    specEntries.add(yaml);
    return this;
  }

  /** {@code check} on, every {@code intervalSeconds}. */
  public CniNetworkYaml checkEvery(int intervalSeconds) {
    return spec("check: {enabled: true, intervalSeconds: " + intervalSeconds + "}");
  }

  /** The {@code ipam} entry of host-local with {@code ranges}, its store in {@code dataDir}. */
  public static String hostLocal(String ranges, Path dataDir) {
    return "ipam:\n  type: host-local\n"
        + (dataDir == null ? "" : "  dataDir: " + dataDir + "\n")
        + "  ranges: "
        + ranges;
  }

  public String yaml() {
    StringBuilder y =
        new StringBuilder()
            .append("apiVersion: cnioperator.dev/v1alpha1\n")
            .append("kind: CniNetwork\n")
            .append("metadata:\n")
            .append("  name: ")
            .append(name)
            .append('\n')
            .append("spec:\n")
            .append("  cniVersion: \"1.0.0\"\n");
    if (priority != null) {
      y.append("  priority: ").append(priority).append('\n');
    }
    if (nodeSelector != null) {
      y.append("  nodeSelector:\n").append(indent(nodeSelector, "    ", "    "));
    }
    y.append("  plugins:\n");
    plugins.forEach(p -> y.append(indent(p, "  - ", "    ")));
    specEntries.forEach(e -> y.append(indent(e, "  ", "  ")));
    return y.toString();
  }

  private static String indent(String yaml, String first, String rest) {
    StringBuilder out = new StringBuilder();
    String[] lines = yaml.strip().split("\n");
    for (int i = 0; i < lines.length; i++) {
      out.append(i == 0 ? first : rest).append(lines[i]).append('\n');
    }
    return out.toString();
  }
}
