package dev.cnioperator.cni.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Configuration files libcni 1.3 loads or refuses, each with the verdict: {@code
 * LibcniConfigFileTest} holds {@link LibcniConfigFile} to it, {@code LibcniConfigFileIT} holds
 * libcni's own {@code cnitool} 1.3.0 to it, so the two agree on every sample.
 */
final class LibcniConfigSamples {
  private LibcniConfigSamples() {}

  /**
   * One sample: {@code file} with {@code content}, beside {@code others} (paths relative to the
   * directory, such as a list's plugin files in {@code <name>/}).
   */
  record Sample(
      String label, String file, String content, Map<String, String> others, boolean loads) {

    /** Writes the sample into {@code dir} and returns the file under test. */
    Path writeInto(Path dir) throws IOException {
      for (Map.Entry<String, String> o : others.entrySet()) {
        Path p = dir.resolve(o.getKey());
        Files.createDirectories(p.getParent());
        Files.writeString(p, o.getValue(), StandardCharsets.UTF_8);
      }
      Path f = dir.resolve(file);
      Files.write(f, content.getBytes(StandardCharsets.UTF_8));
      return f;
    }

    @Override
    public String toString() {
      return label + " (" + file + ")";
    }
  }

  private static Sample loads(String label, String file, String content) {
    return new Sample(label, file, content, Map.of(), true);
  }

  private static Sample refused(String label, String file, String content) {
    return new Sample(label, file, content, Map.of(), false);
  }

  private static final String BRIDGE = "[{\"type\":\"bridge\"}]";

  private static String list(String extra) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\"a\"," + extra + "}";
  }

  /** For {@code @MethodSource}. */
  static Stream<Sample> all() {
    return ALL.stream();
  }

  static final List<Sample> ALL =
      List.of(
          loads("a list", "10-a.conflist", list("\"plugins\":" + BRIDGE)),
          loads("a dot file is read all the same", ".10-a.conflist", list("\"plugins\":" + BRIDGE)),
          refused("no plugins in the list", "10-a.conflist", list("\"plugins\":[]")),
          refused("no plugins key and no plugin files", "10-a.conflist", list("\"x\":1")),
          new Sample(
              "plugins from <name>/",
              "10-a.conflist",
              list("\"x\":1"),
              Map.of("a/10-bridge.conf", "{\"type\":\"bridge\"}"),
              true),
          new Sample(
              "a broken plugin file in <name>/",
              "10-a.conflist",
              list("\"plugins\":" + BRIDGE),
              Map.of("a/10-bridge.conf", "{\"name\":\"b\"}"),
              false),
          new Sample(
              "loadOnlyInlinedPlugins skips <name>/",
              "10-a.conflist",
              list("\"loadOnlyInlinedPlugins\":true,\"plugins\":" + BRIDGE),
              Map.of("a/10-bridge.conf", "{\"name\":\"b\"}"),
              true),
          refused(
              "loadOnlyInlinedPlugins without plugins",
              "10-a.conflist",
              list("\"loadOnlyInlinedPlugins\":\"True\"")),
          refused("no name", "10-a.conflist", "{\"plugins\":" + BRIDGE + "}"),
          refused("a number for name", "10-a.conflist", "{\"name\":5,\"plugins\":" + BRIDGE + "}"),
          refused("a null name", "10-a.conflist", "{\"name\":null,\"plugins\":" + BRIDGE + "}"),
          loads("an empty name", "10-a.conflist", "{\"name\":\"\",\"plugins\":" + BRIDGE + "}"),
          loads(
              "a name the spec forbids",
              "10-a.conflist",
              "{\"name\":\"a b/c\",\"plugins\":" + BRIDGE + "}"),
          refused(
              "a number for cniVersion",
              "10-a.conflist",
              "{\"cniVersion\":1,\"name\":\"a\",\"plugins\":" + BRIDGE + "}"),
          loads(
              "any string for cniVersion",
              "10-a.conflist",
              "{\"cniVersion\":\"banana\",\"name\":\"a\",\"plugins\":" + BRIDGE + "}"),
          refused(
              "cniVersion unparsable beside cniVersions",
              "10-a.conflist",
              "{\"cniVersion\":\"banana\",\"cniVersions\":[\"1.0.0\"],\"name\":\"a\","
                  + "\"plugins\":"
                  + BRIDGE
                  + "}"),
          loads(
              "a future cniVersions entry",
              "10-a.conflist",
              list("\"cniVersions\":[\"9.0.0\"],\"plugins\":" + BRIDGE)),
          loads(
              "a signed cniVersions entry",
              "10-a.conflist",
              list("\"cniVersions\":[\"+1.-0\"],\"plugins\":" + BRIDGE)),
          refused(
              "a four-part cniVersions entry",
              "10-a.conflist",
              list("\"cniVersions\":[\"1.0.0.0\"],\"plugins\":" + BRIDGE)),
          refused(
              "a number in cniVersions",
              "10-a.conflist",
              list("\"cniVersions\":[1],\"plugins\":" + BRIDGE)),
          refused(
              "cniVersions not a list",
              "10-a.conflist",
              list("\"cniVersions\":\"1.0.0\",\"plugins\":" + BRIDGE)),
          loads(
              "disableCheck as a string",
              "10-a.conflist",
              list("\"disableCheck\":\"TRUE\",\"plugins\":" + BRIDGE)),
          refused(
              "disableGC yes",
              "10-a.conflist",
              list("\"disableGC\":\"yes\",\"plugins\":" + BRIDGE)),
          refused(
              "disableCheck as a number",
              "10-a.conflist",
              list("\"disableCheck\":1,\"plugins\":" + BRIDGE)),
          refused("plugins not a list", "10-a.conflist", list("\"plugins\":{\"type\":\"bridge\"}")),
          refused("a plugin without type", "10-a.conflist", list("\"plugins\":[{\"name\":\"x\"}]")),
          refused("a null plugin", "10-a.conflist", list("\"plugins\":[null]")),
          refused("a string plugin", "10-a.conflist", list("\"plugins\":[\"bridge\"]")),
          refused("a number for type", "10-a.conflist", list("\"plugins\":[{\"type\":5}]")),
          refused(
              "a number for Type, case-insensitively",
              "10-a.conflist",
              list("\"plugins\":[{\"type\":\"bridge\",\"TYPE\":5}]")),
          loads(
              "Type as type",
              "10-a.conflist",
              list("\"plugins\":[{\"Type\":\"bridge\",\"type\":null}]")),
          refused(
              "ipam as a string",
              "10-a.conflist",
              list("\"plugins\":[{\"type\":\"bridge\",\"ipam\":\"host-local\"}]")),
          refused(
              "a number for ipam.type",
              "10-a.conflist",
              list("\"plugins\":[{\"type\":\"bridge\",\"ipam\":{\"type\":5}}]")),
          loads(
              "an ipam without type",
              "10-a.conflist",
              list("\"plugins\":[{\"type\":\"bridge\",\"ipam\":{\"subnet\":5}}]")),
          refused(
              "dns.nameservers as a string",
              "10-a.conflist",
              list("\"plugins\":[{\"type\":\"bridge\",\"dns\":{\"nameservers\":\"8.8.8.8\"}}]")),
          refused(
              "a capability that is not a boolean",
              "10-a.conflist",
              list("\"plugins\":[{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":1}}]")),
          refused(
              "a number beyond float64",
              "10-a.conflist",
              list("\"mtu\":1e400,\"plugins\":" + BRIDGE)),
          refused("a JSON list", "10-a.conflist", "[]"),
          refused("JSON null", "10-a.conflist", "null"),
          refused("an empty file", "10-a.conflist", ""),
          refused("half a document", "10-a.conflist", "{\"name\":\"a\",\"plu"),
          refused(
              "something after the document", "10-a.conflist", list("\"plugins\":" + BRIDGE) + "x"),
          refused("a comment", "10-a.conflist", "// x\n" + list("\"plugins\":" + BRIDGE)),
          refused("a byte order mark", "10-a.conflist", "\uFEFF" + list("\"plugins\":" + BRIDGE)),
          loads("a single configuration", "10-a.conf", "{\"name\":\"a\",\"type\":\"bridge\"}"),
          loads("a single configuration without name", "10-a.json", "{\"type\":\"bridge\"}"),
          loads(
              "a null name in a single configuration",
              "10-a.conf",
              "{\"name\":null,\"type\":\"bridge\"}"),
          refused("a list saved as .conf", "10-a.conf", list("\"plugins\":" + BRIDGE)),
          refused("JSON null as .conf", "10-a.conf", "null"),
          refused("a number as .json", "10-a.json", "5"),
          loads(
              "a number beyond float64 where Go skips it",
              "10-a.conf",
              "{\"type\":\"bridge\",\"mtu\":1e400}"),
          refused(
              "a number beyond float64 in prevResult",
              "10-a.conf",
              "{\"type\":\"bridge\",\"prevResult\":{\"x\":1e400}}"),
          refused(
              "a number for a valid attachment's containerID",
              "10-a.conf",
              "{\"type\":\"bridge\",\"cni.dev/valid-attachments\":[{\"containerID\":1}]}"),
          refused("not JSON at all", "10-a.json", "type=bridge"));
}
