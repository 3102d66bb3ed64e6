package dev.cnioperator.testkit.images;

import dev.cnioperator.testkit.Await;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.FreePorts;
import dev.cnioperator.testkit.Prerequisites;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A container registry of the test's own: Debian's {@code docker-registry} (the CNCF distribution
 * registry), speaking plain HTTP on a free port of one address (the host's address on a node
 * bridge, which the nodes' containerd pull from), its storage in a directory the test owns. Closing
 * it stops the process and removes the storage.
 */
public final class LocalRegistry implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

  private final Process process;
  private final Path dir;
  private final String hostPort;

  private LocalRegistry(Process process, Path dir, String hostPort) {
    this.process = process;
    this.dir = dir;
    this.hostPort = hostPort;
  }

  /**
   * Starts a registry on a free port of {@code address}; returns once it accepts connections. Fails
   * (CI) or skips (elsewhere) without {@code docker-registry}, which e2e/bin/provision installs.
   */
  public static LocalRegistry start(String address) {
    Path registry = Prerequisites.requireCommand("docker-registry");
    int port = freePort(address);
    String hostPort = address + ":" + port;
    Path dir;
    try {
      dir = Files.createTempDirectory("cni-operator-registry-");
      Files.writeString(
          dir.resolve("config.yml"),
          """
          version: 0.1
          log:
            level: warn
          storage:
            filesystem:
              rootdirectory: %s
          http:
            addr: %s
          """
              .formatted(dir.resolve("data"), hostPort));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the registry's directory", e);
    }
    Process process;
    try {
      process =
          new ProcessBuilder(registry.toString(), "serve", dir.resolve("config.yml").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("registry.log").toFile())
              .start();
    } catch (IOException e) {
      removeDir(dir);
      throw new UncheckedIOException("cannot start docker-registry", e);
    }
    LocalRegistry started = new LocalRegistry(process, dir, hostPort);
    try {
      started.awaitListening(address, port);
    } catch (RuntimeException e) {
      started.close();
      throw e;
    }
    return started;
  }

  /** {@code address:port}, the registry part of an image reference. */
  public String hostPort() {
    return hostPort;
  }

  private void awaitListening(String address, int port) {
    Await.serving(
        "docker-registry on " + hostPort,
        process,
        dir.resolve("registry.log"),
        () -> {
          try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 500);
            return true;
          } catch (IOException notYet) {
            return false;
          }
        },
        READY_TIMEOUT);
  }

  private static int freePort(String address) {
    try {
      return FreePorts.on(InetAddress.getByName(address));
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on " + address, e);
    }
  }

  private static void removeDir(Path dir) {
    Commands.run("rm", "-rf", "--one-file-system", dir.toString());
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      removeDir(dir);
    }
  }
}
