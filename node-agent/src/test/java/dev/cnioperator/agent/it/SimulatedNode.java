package dev.cnioperator.agent.it;

import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** A node's host directories in a sandbox under target/, with the reference plugins as bundle. */
final class SimulatedNode implements AutoCloseable {
  final String name;
  final Path root;
  final HostPaths paths;

  SimulatedNode(String base, Path bundledPlugins) throws IOException {
    this.name = TestNames.unique(base);
    this.root = Path.of("target/it-nodes", name).toAbsolutePath();
    Files.createDirectories(root);
    this.paths = HostPaths.under(root, bundledPlugins);
    Files.createDirectories(paths.confDir());
    Files.createDirectories(paths.binDir());
  }

  Path conflist(String fileName) {
    return paths.confDir().resolve(fileName);
  }

  /** Where {@code network}'s file is: its directory, the runtime's or Multus's. */
  Path conflist(NodeNetwork network) {
    return paths.confDir(network.getDirectory()).resolve(network.getFileName());
  }

  /** sha256 of every file under the node's root, by relative path: what "nothing changed" means. */
  Map<String, String> snapshot() throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        if (!p.getFileName().toString().equals("agent.log")) {
          out.put(root.relativize(p).toString(), Sha256.hex(Files.readAllBytes(p)));
        }
      }
    }
    return out;
  }

  /** host-local's reservations of {@code network} in this node's dataDir (test addresses only). */
  int reservations(String network) {
    String[] names =
        root.resolve("var/lib/cni/networks")
            .resolve(network)
            .toFile()
            .list((d, n) -> n.startsWith("10.200."));
    return names == null ? 0 : names.length;
  }

  Path log() {
    return root.resolve("agent.log");
  }

  @Override
  public void close() throws IOException {
    // The agent's log outlives the sandbox, for reading after a failure.
    if (Files.exists(log())) {
      Path kept = Path.of("target/it-logs").toAbsolutePath().resolve(name + ".log");
      Files.createDirectories(kept.getParent());
      Files.copy(log(), kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
    try (Stream<Path> files = Files.walk(root)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
