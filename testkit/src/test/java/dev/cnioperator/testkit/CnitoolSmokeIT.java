package dev.cnioperator.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Proves the plugin infrastructure is real: libcni's cnitool drives the reference bridge and
 * host-local plugins in a real network namespace.
 */
class CnitoolSmokeIT {
  private NetworkNamespace netns;
  private Path work;
  private String bridge;
  private String network;

  @BeforeEach
  void setUp() throws IOException {
    Prerequisites.requireRoot();
    netns = NetworkNamespace.create("smoke");
    work = Files.createTempDirectory("cnitool-smoke");
    bridge = TestNames.unique("br");
    network = TestNames.unique("net");
  }

  @AfterEach
  void tearDown() throws IOException {
    if (netns != null) {
      netns.close();
    }
    Commands.run("ip", "link", "del", bridge);
    if (work != null) {
      try (Stream<Path> files = Files.walk(work)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    if (network != null) {
      try (Stream<Path> cached = Files.list(Path.of("/var/lib/cni/results"))) {
        cached
            .filter(p -> p.getFileName().toString().startsWith(network + "-"))
            .forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // no cache directory: nothing to clean
      }
    }
  }

  @Test
  void addCheckDelOfBridgeAndHostLocalMakeAndReleaseTheInterfaceAndReservation()
      throws IOException {
    Path confDir = Files.createDirectories(work.resolve("net.d"));
    Path ipamDir = work.resolve("ipam");
    Files.writeString(
        confDir.resolve("10-smoke.conflist"),
        """
        {
          "cniVersion": "1.1.0",
          "name": "%s",
          "plugins": [
            {
              "type": "bridge",
              "bridge": "%s",
              "isGateway": true,
              "ipam": {
                "type": "host-local",
                "dataDir": "%s",
                "ranges": [[{"subnet": "10.200.7.0/24"}]]
              }
            }
          ]
        }
        """
            .formatted(network, bridge, ipamDir));

    cnitool("add").orThrow("cnitool add");
    String addresses = netns.exec("ip", "-4", "-o", "addr", "show", "dev", "eth0");
    assertThat(addresses).contains("10.200.7.");
    Path reservations = ipamDir.resolve(network);
    assertThat(HostLocalStore.reservedIps(reservations)).hasSize(1);

    cnitool("check").orThrow("cnitool check");

    cnitool("del").orThrow("cnitool del");
    assertThat(netns.execResult("ip", "link", "show", "eth0").ok()).isFalse();
    assertThat(HostLocalStore.reservedIps(reservations)).isEmpty();
  }

  private CommandResult cnitool(String verb) {
    return Commands.run(
        List.of(ToolPaths.cnitool().toString(), verb, network, netns.path().toString()),
        Map.of(
            "NETCONFPATH", work.resolve("net.d").toString(),
            "CNI_PATH", ToolPaths.pluginDir().toString()),
        null,
        Duration.ofMinutes(1));
  }
}
