package dev.cnioperator.agent.probe;

import dev.cnioperator.agent.network.ProbeIdentity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Named network namespaces for probes, made and removed with {@code ip netns} (iproute2, in the
 * agent image) so they live in /var/run/netns as every runtime's do. Removing a namespace also
 * removes every interface left inside it.
 */
public class ProbeNamespaces {
  /** Where {@code ip netns} mounts named namespaces. */
  public static final Path RUN_DIR = Path.of("/var/run/netns");

  private static final long TIMEOUT_SECONDS = 10;

  /** Creates the namespace {@code name} with loopback up; returns its path. */
  public Path create(String name) throws IOException {
    run("ip", "netns", "add", name);
    try {
      run("ip", "-n", name, "link", "set", "lo", "up");
    } catch (IOException e) {
      delete(name);
      throw e;
    }
    return RUN_DIR.resolve(name);
  }

  /** Removes the namespace {@code name}; a missing one is not an error. */
  public void delete(String name) throws IOException {
    if (Files.exists(RUN_DIR.resolve(name))) {
      run("ip", "netns", "delete", name);
    }
  }

  /** The names of namespaces in {@link #RUN_DIR} that {@code identity} owns. */
  public List<String> owned(ProbeIdentity identity) throws IOException {
    if (!Files.isDirectory(RUN_DIR)) {
      return List.of();
    }
    List<String> names = new ArrayList<>();
    try (Stream<Path> list = Files.list(RUN_DIR)) {
      list.map(p -> p.getFileName().toString()).filter(identity::isOwn).forEach(names::add);
    }
    return names;
  }

  private static void run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(
            String.join(" ", command) + ": no answer in " + TIMEOUT_SECONDS + "s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(String.join(" ", command) + ": interrupted", e);
    }
    if (p.exitValue() != 0) {
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      throw new IOException(String.join(" ", command) + ": " + out);
    }
  }
}
