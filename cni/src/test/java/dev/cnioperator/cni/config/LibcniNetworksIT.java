package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.config.LibcniNetworks.Directory;
import dev.cnioperator.cni.config.LibcniNetworks.Found;
import dev.cnioperator.cni.config.LibcniNetworks.Lookup;
import dev.cnioperator.cni.config.LibcniNetworks.NotFound;
import dev.cnioperator.cni.config.LibcniNetworks.SinglePlugin;
import dev.cnioperator.cni.config.LibcniNetworks.Stopped;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * libcni's own {@code cnitool} 1.3.0 as the judge of {@link LibcniNetworks}: which file it takes
 * for a network name, and which chain it runs from it, drop-ins included. No plugin binary is on
 * the path, so an ADD fails naming the chain's first plugin type, and a DEL (which runs the chain
 * backwards) its last: each case's types are unique, so the two names show the file found and the
 * end of the merged chain. Nothing runs, nothing is attached, no netns is needed.
 */
class LibcniNetworksIT {
  private static final Pattern NOT_FOUND_PLUGIN =
      Pattern.compile("failed to find plugin \"([^\"]+)\"");

  @TempDir Path dir;
  @TempDir Path emptyBinDir;

  /** One directory and the network looked up in it. */
  record Case(
      String name,
      String network,
      Map<String, String> files,
      Map<String, Map<String, String>> dropIns) {
    @Override
    public String toString() {
      return name;
    }

    Directory directory() {
      SortedMap<String, byte[]> top = new TreeMap<>();
      files.forEach((k, v) -> top.put(k, v.getBytes(StandardCharsets.UTF_8)));
      Map<String, SortedMap<String, byte[]>> subs = new TreeMap<>();
      dropIns.forEach(
          (d, fs) -> {
            SortedMap<String, byte[]> in = new TreeMap<>();
            fs.forEach((k, v) -> in.put(k, v.getBytes(StandardCharsets.UTF_8)));
            subs.put(d, in);
          });
      return new Directory(top, subs);
    }
  }

  private static String list(String name, String... types) {
    StringBuilder plugins = new StringBuilder();
    for (String t : types) {
      plugins.append(plugins.isEmpty() ? "" : ",").append("{\"type\":\"").append(t).append("\"}");
    }
    return "{\"cniVersion\":\"1.0.0\",\"name\":\"" + name + "\",\"plugins\":[" + plugins + "]}";
  }

  private static String plugin(String type) {
    return "{\"type\":\"" + type + "\"}";
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "the first list of the name wins",
            "net",
            Map.of("10-a.conflist", list("net", "a1", "a2"), "20-b.conflist", list("net", "b1")),
            Map.of()),
        new Case(
            "lists are searched before single-plugin files",
            "net",
            Map.of(
                "05-s.conf",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"s1\"}",
                "30-l.conflist",
                list("net", "l1")),
            Map.of()),
        new Case(
            "a single-plugin file when no list has the name",
            "net",
            Map.of(
                "05-s.conf",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"s1\"}",
                "10-o.conflist",
                list("other", "o1")),
            Map.of("net", Map.of("d.conf", plugin("sd")))),
        new Case(
            "drop-ins follow the list's plugins in file-name order; other extensions are not read",
            "cbr0",
            Map.of("10-flannel.conflist", list("cbr0", "f1")),
            Map.of(
                "cbr0",
                Map.of(
                    "20-x.conf", plugin("x"),
                    "10-y.conf", plugin("y"),
                    "30-w.json", plugin("w"),
                    "40-v.conf.tmp", plugin("v")))),
        new Case(
            "a dot-file is a drop-in, before digits",
            "cbr0",
            Map.of("10-flannel.conflist", list("cbr0", "f1")),
            Map.of("cbr0", Map.of("10-y.conf", plugin("y"), ".z.conf", plugin("z")))),
        new Case(
            "the drop-in directory is the list's name, not its file's",
            "cbr0",
            Map.of("10-flannel.conflist", list("cbr0", "f1", "f2")),
            Map.of("10-flannel", Map.of("x.conf", plugin("x")))),
        new Case(
            "loadOnlyInlinedPlugins leaves the drop-ins out",
            "cbr0",
            Map.of(
                "10-flannel.conflist",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"cbr0\",\"loadOnlyInlinedPlugins\":true,"
                    + "\"plugins\":[{\"type\":\"f1\"},{\"type\":\"f2\"}]}"),
            Map.of("cbr0", Map.of("x.conf", plugin("x")))),
        new Case(
            "a list with no plugins key runs its drop-ins",
            "net",
            Map.of("10-net.conflist", "{\"cniVersion\":\"1.0.0\",\"name\":\"net\"}"),
            Map.of("net", Map.of("a.conf", plugin("d1"), "b.conf", plugin("d2")))),
        new Case(
            "a file that is not JSON stops the search",
            "net",
            Map.of(
                "05-broken.conflist",
                "{\"name\": \"net\", \"plug",
                "10-net.conflist",
                list("net", "n1")),
            Map.of()),
        new Case(
            "a broken drop-in of a network before stops the search",
            "net",
            Map.of("05-other.conflist", list("other", "o1"), "10-net.conflist", list("net", "n1")),
            Map.of("other", Map.of("x.conf", "{\"type\": "))),
        new Case(
            "a broken single-plugin file after the lists stops the search",
            "net",
            Map.of("10-other.conflist", list("other", "o1"), "20-x.conf", "[1,"),
            Map.of()),
        new Case(
            "no file of the name",
            "net",
            Map.of("10-other.conflist", list("other", "o1"), "20-x.conf", plugin("x")),
            Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void cnitoolTakesTheFileAndRunsTheChainTheLookupSays(Case c) throws IOException {
    write(c);
    Lookup lookup = LibcniNetworks.find(c.network(), c.directory());
    CommandResult add = cnitool("add", c.network());
    CommandResult del = cnitool("del", c.network());
    String said = add.stdout() + add.stderr();
    lookup.accept(
        new Lookup.Visitor<Void>() {
          @Override
          public Void found(Found found) {
            List<String> types = found.chain().get("plugins").findValuesAsText("type");
            assertThat(plugin(add)).as(said).isEqualTo(types.get(0));
            assertThat(plugin(del)).as(del.stderr()).isEqualTo(types.get(types.size() - 1));
            return null;
          }

          @Override
          public Void singlePlugin(SinglePlugin single) {
            String type = single.conf().get("type").asText();
            assertThat(plugin(add)).as(said).isEqualTo(type);
            assertThat(plugin(del)).as(del.stderr()).isEqualTo(type);
            return null;
          }

          @Override
          public Void stopped(Stopped stopped) {
            assertThat(add.exitCode()).isNotZero();
            assertThat(said)
                .as("stopped at %s", stopped.fileName())
                .contains("error parsing configuration");
            return null;
          }

          @Override
          public Void notFound(NotFound notFound) {
            assertThat(add.exitCode()).isNotZero();
            assertThat(said).contains("no net configuration with name \"" + c.network() + "\"");
            return null;
          }
        });
  }

  private void write(Case c) throws IOException {
    for (Map.Entry<String, String> f : c.files().entrySet()) {
      Files.writeString(dir.resolve(f.getKey()), f.getValue());
    }
    for (Map.Entry<String, Map<String, String>> d : c.dropIns().entrySet()) {
      Path sub = Files.createDirectories(dir.resolve(d.getKey()));
      for (Map.Entry<String, String> f : d.getValue().entrySet()) {
        Files.writeString(sub.resolve(f.getKey()), f.getValue());
      }
    }
  }

  private CommandResult cnitool(String verb, String network) {
    return Commands.run(
        List.of(ToolPaths.cnitool().toString(), verb, network, dir.resolve("no-netns").toString()),
        Map.of("NETCONFPATH", dir.toString(), "CNI_PATH", emptyBinDir.toString()),
        null,
        Duration.ofSeconds(30));
  }

  /** The plugin type cnitool could not find: the first it tried. */
  private static String plugin(CommandResult r) {
    Matcher m = NOT_FOUND_PLUGIN.matcher(r.stdout() + r.stderr());
    assertThat(m.find()).as("cnitool said: %s%s", r.stdout(), r.stderr()).isTrue();
    return m.group(1);
  }
}
