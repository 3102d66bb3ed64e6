package dev.cnioperator.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A simulated node: a Node object in the API server and a host root directory on this machine
 * holding what a real node keeps in {@code /etc/cni/net.d}, {@code /opt/cni/bin}, {@code
 * /var/lib/cni}, Multus's {@code /etc/cni/multus/net.d} and the agent's state, with its agent
 * running as a process. Network namespaces are the machine's real ones, unless the agent runs in
 * namespaces of its own ({@link LocalProduct#startAgentInNamespaces}).
 */
public record SandboxNode(String name, Path root, Path cacheDirOverride, ProductProcess agent) {

  public Path confDir() {
    return root.resolve("etc/cni/net.d");
  }

  public Path binDir() {
    return root.resolve("opt/cni/bin");
  }

  public Path cacheDir() {
    return cacheDirOverride != null ? cacheDirOverride : root.resolve("var/lib/cni");
  }

  public Path stateDir() {
    return root.resolve("var/lib/cni-operator");
  }

  /** Multus's own conf dir, where the agent writes the files of Multus secondary networks. */
  public Path multusConfDir() {
    return root.resolve("etc/cni/multus/net.d");
  }

  /** The libcni cache Multus gives the plugins of its attachments. */
  public Path multusCacheDir() {
    return root.resolve("var/lib/cni/multus");
  }

  /** The content of a file in the conf dir, if it is there. */
  public Optional<String> conflist(String fileName) {
    Path file = confDir().resolve(fileName);
    try {
      return Files.exists(file) ? Optional.of(Files.readString(file)) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
