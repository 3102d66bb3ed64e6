package dev.cnioperator.cni.runtime;

import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.NetworkNamespace;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What one IT makes on the host for real plugins, all under unique names and removed on close even
 * after a failure: a network namespace, a bridge name, a network name, a /24 from 10.213.0.0/16
 * (the range these ITs own), a work directory with net.d, the host-local data directory and a
 * result cache, and any libcni cache entries of the network under /var/lib/cni.
 */
public final class HostNetworkFixture implements AutoCloseable {
  private static final SecureRandom RANDOM = new SecureRandom();

  public final NetworkNamespace netns;
  public final String bridge;
  public final String network;
  public final String subnetPrefix;
  public final Path work;
  public final Path netconfDir;
  public final Path ipamDir;
  public final Path cacheDir;
  public final int hostPort;

  public HostNetworkFixture(String base) {
    try {
      netns = NetworkNamespace.create(base);
      bridge = TestNames.unique("br");
      network = TestNames.unique(base);
      subnetPrefix = "10.213." + (1 + RANDOM.nextInt(254)) + ".";
      // Below the ports FreePorts hands out to servers (20000 and up): the DNAT of this hostPort
      // in the machine's OUTPUT chain would take their loopback connections.
      hostPort = 10_000 + RANDOM.nextInt(10_000);
      work = Files.createTempDirectory("cni-it-" + network);
      netconfDir = Files.createDirectories(work.resolve("net.d"));
      ipamDir = work.resolve("ipam");
      cacheDir = work.resolve("cache");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String subnet() {
    return subnetPrefix + "0/24";
  }

  /** A conflist of {@code version} with the given plugin objects (JSON text, comma-joined). */
  public String conflist(String version, String... plugins) {
    return "{\"cniVersion\":\""
        + version
        + "\",\"name\":\""
        + network
        + "\",\"plugins\":["
        + String.join(",", plugins)
        + "]}";
  }

  /** The host-local IPAM block of this fixture. */
  public String ipam() {
    return "{\"type\":\"host-local\",\"dataDir\":\""
        + ipamDir
        + "\",\"ranges\":[[{\"subnet\":\""
        + subnet()
        + "\"}]]}";
  }

  public String bridgePlugin() {
    return "{\"type\":\"bridge\",\"bridge\":\""
        + bridge
        + "\",\"isGateway\":true,\"ipam\":"
        + ipam()
        + "}";
  }

  public String tuningPlugin() {
    return "{\"type\":\"tuning\",\"sysctl\":{\"net.core.somaxconn\":\"512\"}}";
  }

  public String portmapPlugin() {
    return "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}";
  }

  public String ptpPlugin() {
    return "{\"type\":\"ptp\",\"ipam\":" + ipam() + "}";
  }

  /** The capability args of a port mapping from this fixture's host port to 80. */
  public String portMappings() {
    return "[{\"hostPort\":" + hostPort + ",\"containerPort\":80,\"protocol\":\"tcp\"}]";
  }

  public Path writeConflist(String json) {
    try {
      return Files.writeString(netconfDir.resolve("10-" + network + ".conflist"), json);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The IPs host-local holds for this network (one file per address, named by it). */
  public List<String> reservations() {
    Path dir = ipamDir.resolve(network);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d+\\.\\d+\\.\\d+\\.\\d+"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Lines of the nat table that name {@code containerId} (portmap's per-container chains). */
  public static List<String> natRulesFor(String containerId) {
    String rules = Commands.run("iptables", "-t", "nat", "-S").stdout();
    List<String> found = new ArrayList<>();
    for (String line : rules.split("\n")) {
      if (line.contains(containerId)) {
        found.add(line);
      }
    }
    return found;
  }

  @Override
  public void close() {
    netns.close();
    Commands.run("ip", "link", "del", bridge);
    deleteTree(work);
    Path libcniResults = ResultCache.DEFAULT_DIR.resolve("results");
    if (Files.isDirectory(libcniResults)) {
      try (Stream<Path> cached = Files.list(libcniResults)) {
        cached
            .filter(p -> p.getFileName().toString().startsWith(network + "-"))
            .forEach(p -> p.toFile().delete());
      } catch (IOException ignored) {
        // nothing cached there
      }
    }
  }

  private static void deleteTree(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort: the names are unique, a leftover does not disturb another run
    }
  }
}
