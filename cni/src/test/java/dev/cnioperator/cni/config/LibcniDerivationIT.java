package dev.cnioperator.cni.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * libcni itself, through cnitool v1.3.0, as the independent peer of this package: from the same
 * configuration directory and capability args, cnitool must pick the same file as {@link
 * ConfigDirectory} and send every plugin the request configuration {@link PluginConfig} derives,
 * for ADD, CHECK, DEL, STATUS and GC. The plugins are recorder scripts on a private CNI_PATH that
 * save their stdin and answer like a plugin; nothing touches the network.
 *
 * <p>Known and intended difference: libcni leaves {@code capabilities} in the request, which
 * SPEC-1.1.0.md Section 3 says must not be set; it is removed from libcni's side before comparing.
 * Requests are compared as canonical JSON (libcni sends Go's sorted keys).
 */
class LibcniDerivationIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CAP_ARGS =
      "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}],"
          + "\"mac\":\"00:11:22:33:44:66\"}";

  /** Saves stdin as NN-VERB-TYPE.json, prints an ADD result in the request's own version. */
  private static final String RECORDER =
      """
      #!/bin/sh
      set -e
      n=$(ls "$RECORD_DIR" | wc -l)
      out="$RECORD_DIR/$(printf %02d "$n")-$CNI_COMMAND-$(basename "$0").json"
      cat > "$out"
      v=$(grep -o '"cniVersion":"[0-9.]*"' "$out" | head -1 | cut -d'"' -f4)
      if [ "$CNI_COMMAND" = ADD ]; then
        printf '{"cniVersion":"%s","interfaces":[{"name":"eth0","mac":"00:11:22:33:44:55",\
      "sandbox":"%s"}],"ips":[{"address":"10.200.0.5/24","gateway":"10.200.0.1","interface":0}],\
      "routes":[{"dst":"0.0.0.0/0"}],"dns":{"nameservers":["10.200.0.1"]}}' "$v" "$CNI_NETNS"
      fi
      """;

  @TempDir Path work;
  private Path netd;
  private Path bin;
  private Path records;
  private final List<String> networks = new ArrayList<>();

  @BeforeEach
  void recorderPlugins() throws IOException {
    netd = Files.createDirectory(work.resolve("net.d"));
    bin = Files.createDirectory(work.resolve("bin"));
    records = Files.createDirectory(work.resolve("records"));
    for (String type : List.of("bridge", "tuning", "portmap")) {
      Path plugin = bin.resolve(type);
      Files.writeString(plugin, RECORDER);
      Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @AfterEach
  void removeLibcniCacheEntries() throws IOException {
    // cnitool caches under libcni's default /var/lib/cni; DEL removes the entry, this is for
    // failures half way.
    Path results = Path.of("/var/lib/cni/results");
    if (!Files.isDirectory(results)) {
      return;
    }
    try (Stream<Path> entries = Files.list(results)) {
      for (Path entry : entries.toList()) {
        String file = entry.getFileName().toString();
        if (networks.stream().anyMatch(n -> file.startsWith(n + "-cnitool-"))) {
          Files.deleteIfExists(entry);
        }
      }
    }
  }

  @Test
  void cnitoolSendsTheRequestsThisPackageDerivesForTheSpecExample() throws IOException {
    Prerequisites.requireRoot();
    String network = network("libcni");
    String example = new String(SpecExamples.section1Example(), UTF_8).replace("dbnet", network);
    // libcni's search order: a later conflist and any legacy .conf of the same name are not used.
    Files.writeString(netd.resolve("10-" + network + ".conflist"), example);
    Files.writeString(netd.resolve("20-" + network + ".conflist"), decoyList(network));
    Files.writeString(netd.resolve("05-" + network + ".conf"), decoyConf(network));

    NetworkConfigList list = ConfigDirectory.load(netd, network);
    for (String verb : List.of("add", "check", "del", "status", "gc")) {
      cnitool(verb, network);
    }

    List<Recorded> sent = recorded();
    assertThat(sent)
        .extracting(r -> r.verb() + " " + r.type())
        .containsExactly(
            "ADD bridge",
            "ADD tuning",
            "ADD portmap",
            "CHECK bridge",
            "CHECK tuning",
            "CHECK portmap",
            "DEL portmap",
            "DEL tuning",
            "DEL bridge",
            "STATUS bridge",
            "STATUS tuning",
            "STATUS portmap",
            "GC bridge",
            "GC tuning",
            "GC portmap");
    assertThat(sent.get(0).request().has("prevResult")).isFalse();
    assertThat(sent.get(1).request().has("prevResult")).isTrue();
    CniVersion version = VersionSelection.select(list);
    Map<String, JsonNode> capabilityArgs = capabilityArgs();
    for (Recorded r : sent) {
      PluginConfig plugin = plugin(list, r.type());
      ObjectNode ours =
          switch (r.verb()) {
            case "ADD", "CHECK", "DEL" ->
                plugin.requestConfig(
                    network, version, capabilityArgs, r.request().get("prevResult"));
            default -> plugin.networkRequestConfig(network, version);
          };
      assertThat(canonical(ours)).as(r.file()).isEqualTo(canonical(withoutCapabilities(r)));
    }
  }

  @Test
  void cnitoolReadsALegacyConfAsThisPackageDoes() throws IOException {
    Prerequisites.requireRoot();
    String network = network("legacy");
    Files.writeString(
        netd.resolve("10-" + network + ".conf"),
        "{\"cniVersion\":\"1.0.0\",\"name\":\""
            + network
            + "\",\"type\":\"bridge\","
            + "\"bridge\":\"ctb0\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200.9.0/24\"},"
            + "\"mtu\":1400}");

    NetworkConfigList list = ConfigDirectory.load(netd, network);
    cnitool("add", network);
    cnitool("del", network);

    List<Recorded> sent = recorded();
    assertThat(sent).extracting(Recorded::verb).containsExactly("ADD", "DEL");
    for (Recorded r : sent) {
      ObjectNode ours =
          list.plugins()
              .get(0)
              .requestConfig(
                  network, list.cniVersion(), capabilityArgs(), r.request().get("prevResult"));
      assertThat(canonical(ours)).as(r.file()).isEqualTo(canonical(withoutCapabilities(r)));
    }
  }

  private String network(String base) {
    String name = TestNames.unique(base);
    networks.add(name);
    return name;
  }

  private void cnitool(String verb, String network) {
    Map<String, String> env = new HashMap<>();
    env.put("NETCONFPATH", netd.toString());
    env.put("CNI_PATH", bin.toString());
    env.put("CNI_IFNAME", "eth0");
    env.put("CAP_ARGS", CAP_ARGS);
    env.put("RECORD_DIR", records.toString());
    // Only a string to libcni (it names the container id); the recorders never enter it.
    String netns = work.resolve("netns-" + network).toString();
    CommandResult result =
        Commands.run(
            List.of(ToolPaths.cnitool().toString(), verb, network, netns),
            env,
            null,
            Duration.ofSeconds(30));
    assertThat(result.exitCode()).as("cnitool %s: %s", verb, result.stderr()).isZero();
  }

  private record Recorded(String file, String verb, String type, ObjectNode request) {}

  private List<Recorded> recorded() throws IOException {
    List<Path> files;
    try (Stream<Path> entries = Files.list(records)) {
      files = new ArrayList<>(entries.toList());
    }
    Collections.sort(files);
    List<Recorded> result = new ArrayList<>();
    for (Path file : files) {
      String[] parts = file.getFileName().toString().replace(".json", "").split("-", 3);
      result.add(
          new Recorded(
              file.getFileName().toString(),
              parts[1],
              parts[2],
              (ObjectNode) JSON.readTree(Files.readAllBytes(file))));
    }
    return result;
  }

  private static PluginConfig plugin(NetworkConfigList list, String type) {
    return list.plugins().stream().filter(p -> p.type().equals(type)).findFirst().orElseThrow();
  }

  private static ObjectNode withoutCapabilities(Recorded r) {
    ObjectNode copy = r.request().deepCopy();
    copy.remove("capabilities");
    return copy;
  }

  private static String canonical(JsonNode node) {
    return new String(CanonicalJson.render(node), UTF_8);
  }

  private static Map<String, JsonNode> capabilityArgs() throws IOException {
    Map<String, JsonNode> args = new HashMap<>();
    JSON.readTree(CAP_ARGS).properties().forEach(e -> args.put(e.getKey(), e.getValue()));
    return args;
  }

  private static String decoyList(String network) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\""
        + network
        + "\",\"plugins\":[{\"type\":\"decoy\"}]}";
  }

  private static String decoyConf(String network) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\"" + network + "\",\"type\":\"decoy\"}";
  }
}
