package dev.cnioperator.cni.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Results as real plugins print them, with both plugin sets (Debian's, up to 1.0.0, and the v1.9.0
 * reference build, 1.1.0): every plugin's VERSION answer parses; a bridge + host-local ADD parses
 * at every version the plugins speak (0.2.0 included) and describes what the plugin really
 * configured; each result converted to every version the plugins can CHECK is accepted by the real
 * plugins as {@code prevResult}. The plugins run inside a namespace standing in for the node, so
 * the bridge, veths and addresses (10.212.0.0/16, owned by these tests) vanish with the namespaces.
 */
class RealPluginResultsIT {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration PLUGIN_TIMEOUT = Duration.ofSeconds(30);

  private static Path pluginDir(String set) {
    return set.equals("debian") ? ToolPaths.debianPluginDir() : ToolPaths.pluginDir();
  }

  private static CniVersion newestOfSet(String set) {
    return set.equals("debian") ? CniVersion.V1_0_0 : CniVersion.V1_1_0;
  }

  @ParameterizedTest
  @ValueSource(strings = {"debian", "reference"})
  void everyPluginAnswersVersionInAShapeWeRead(String set) throws IOException {
    Path dir = pluginDir(set);
    List<Path> plugins;
    try (Stream<Path> files = Files.list(dir)) {
      plugins =
          files
              .filter(Files::isRegularFile)
              .filter(Files::isExecutable)
              .sorted(Comparator.naturalOrder())
              .toList();
    }
    assertThat(plugins).hasSizeGreaterThan(10);

    for (Path plugin : plugins) {
      CommandResult run =
          Commands.run(
              List.of(plugin.toString()),
              Map.of("CNI_COMMAND", "VERSION"),
              // No stdin: some plugins answer VERSION without reading it, and writing to a plugin
              // that has already exited fails with a broken pipe.
              null,
              PLUGIN_TIMEOUT);
      assertThat(run.exitCode()).as("%s VERSION: %s", plugin, run.stderr()).isZero();

      VersionResult version = Results.parseVersion(utf8(run.stdout()));

      assertThat(version.newestSupported()).as("%s", plugin).contains(newestOfSet(set));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"debian", "reference"})
  void bridgeResultsParseConvertAndAreAcceptedBackByThePlugins(String set) throws IOException {
    Prerequisites.requireRoot();
    Path dir = pluginDir(set);
    List<CniVersion> versions =
        CniVersion.KNOWN.stream()
            .filter(v -> v.isAtLeast(CniVersion.V0_2_0) && !v.isAtLeast(next(newestOfSet(set))))
            .toList();
    int subnet = 0;
    for (CniVersion version : versions) {
      subnet++;
      try (Attachment attachment = new Attachment(dir, subnet)) {
        Result result = attachment.add(version);

        assertDescribesWhatThePluginConfigured(result, version, attachment);
        for (CniVersion target : versions) {
          // A 0.2.0 result has no interfaces, so converted up it cannot pass bridge's CHECK.
          if (target.supportsCheck() && version.supportsChaining()) {
            Result converted = result.convertTo(target);
            CommandResult check = attachment.run("CHECK", target, converted);
            assertThat(check.exitCode())
                .as(
                    "%s CHECK at %s with a %s result converted: %s %s",
                    set, target, version, check.stdout(), check.stderr())
                .isZero();
          }
        }
        CommandResult del = attachment.run("DEL", version, version.supportsCheck() ? result : null);
        assertThat(del.exitCode()).as("DEL: %s", del.stderr()).isZero();
        assertThat(attachment.reservations()).isEmpty();
      }
    }
  }

  private static void assertDescribesWhatThePluginConfigured(
      Result result, CniVersion version, Attachment attachment) {
    assertThat(result.cniVersion()).isEqualTo(version);
    assertThat(result.ips()).hasSize(1);
    IpConfig ip = result.ips().get(0);
    assertThat(ip.address()).startsWith(attachment.prefix()).endsWith("/24");
    assertThat(ip.gateway()).isEqualTo(attachment.prefix() + "1");
    assertThat(result.routes()).contains(Route.of("0.0.0.0/0", null));
    String addresses = attachment.container.exec("ip", "-o", "-4", "addr", "show", "dev", "eth0");
    assertThat(addresses).contains(ip.address());
    if (version.supportsChaining()) {
      List<String> names = result.interfaces().stream().map(Interface::name).toList();
      assertThat(names).contains(attachment.bridge, "eth0");
      Interface eth0 = result.interfaces().get(ip.interfaceIndex());
      assertThat(eth0.name()).isEqualTo("eth0");
      assertThat(eth0.sandbox()).isEqualTo(attachment.container.path().toString());
      String link = attachment.container.exec("ip", "-o", "link", "show", "dev", "eth0");
      assertThat(link).contains(eth0.mac());
    }
  }

  private static CniVersion next(CniVersion version) {
    int index = CniVersion.KNOWN.indexOf(version);
    return index + 1 < CniVersion.KNOWN.size()
        ? CniVersion.KNOWN.get(index + 1)
        : new CniVersion(version.major(), version.minor() + 1, 0);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** One bridge attachment: a node namespace holding the bridge, a container namespace, IPAM. */
  private static final class Attachment implements AutoCloseable {
    final NetworkNamespace node;
    final NetworkNamespace container;
    final String bridge = TestNames.unique("br");
    final String network = TestNames.unique("res");
    final String containerId = TestNames.unique("id");
    final Path ipamDir;
    final Path pluginDir;
    final int subnet;

    Attachment(Path pluginDir, int subnet) throws IOException {
      this.pluginDir = pluginDir;
      this.subnet = subnet;
      this.node = NetworkNamespace.create("node");
      this.container = NetworkNamespace.create("ctr");
      this.ipamDir = Files.createTempDirectory("cni-result-it-");
    }

    String prefix() {
      return "10.212." + subnet + ".";
    }

    Result add(CniVersion version) {
      CommandResult add = run("ADD", version, null);
      assertThat(add.exitCode())
          .as("ADD at %s: %s %s", version, add.stdout(), add.stderr())
          .isZero();
      return Results.parse(utf8(add.stdout()), version);
    }

    CommandResult run(String command, CniVersion version, Result prevResult) {
      ObjectNode config = MAPPER.createObjectNode();
      config.put("cniVersion", version.toString());
      config.put("name", network);
      config.put("type", "bridge");
      config.put("bridge", bridge);
      config.put("isGateway", true);
      ObjectNode ipam = config.putObject("ipam");
      ipam.put("type", "host-local");
      ipam.put("subnet", prefix() + "0/24");
      ipam.put("dataDir", ipamDir.toString());
      ipam.putArray("routes").addObject().put("dst", "0.0.0.0/0");
      if (prevResult != null) {
        config.set("prevResult", prevResult.toJson());
      }
      // The node namespace stands in for the host: the bridge and host veths are made there.
      return Commands.run(
          List.of("ip", "netns", "exec", node.name(), pluginDir.resolve("bridge").toString()),
          Map.of(
              "CNI_COMMAND",
              command,
              "CNI_CONTAINERID",
              containerId,
              "CNI_NETNS",
              container.path().toString(),
              "CNI_IFNAME",
              "eth0",
              "CNI_PATH",
              pluginDir.toString()),
          utf8(config.toString()),
          PLUGIN_TIMEOUT);
    }

    /** host-local's reservation files for this network (one per allocated address). */
    List<String> reservations() throws IOException {
      Path dir = ipamDir.resolve(network);
      if (!Files.isDirectory(dir)) {
        return List.of();
      }
      try (Stream<Path> files = Files.list(dir)) {
        return files
            .map(p -> p.getFileName().toString())
            .filter(name -> name.startsWith(prefix()))
            .toList();
      }
    }

    @Override
    public void close() throws IOException {
      List<RuntimeException> failures = new ArrayList<>();
      for (NetworkNamespace ns : List.of(container, node)) {
        try {
          ns.close();
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }
      try (Stream<Path> walk = Files.walk(ipamDir)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
      if (!failures.isEmpty()) {
        throw failures.get(0);
      }
    }
  }
}
