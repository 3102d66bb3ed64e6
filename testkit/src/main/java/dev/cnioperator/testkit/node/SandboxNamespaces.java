package dev.cnioperator.testkit.node;

import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.SocketRelay;
import dev.cnioperator.testkit.containerd.HostDirs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace and a mount namespace for a node's programs run on this machine (a node agent
 * and the plugins it runs), so that what they make stays off the machine: the bridge, veths,
 * addresses, iptables rules and sysctls of a probe attachment live in the network namespace; the
 * machine's {@code /var/lib/cni} (libcni's cache, host-local's default dataDir) is the sandbox's
 * directory and {@code /run} (so {@code /run/netns}, where {@code ip netns} puts the probes'
 * namespaces) an empty tmpfs, in the mount namespace only. All go when the last process in them
 * exits.
 *
 * <p>The namespaces are held by a {@link SocketRelay} program inside them, which serves the API
 * server's loopback address and port there and relays to a unix socket, behind which a relay of
 * this JVM reaches the real API server: a kubeconfig for the machine's API server works unchanged
 * inside (its serving certificate names 127.0.0.1), and nothing is added to the machine's network.
 */
public final class SandboxNamespaces implements AutoCloseable {
  private static final String SETUP =
      """
      set -e
      ip link set lo up
      mount --bind "$1" /var/lib/cni
      mount -t tmpfs -o mode=0755 tmpfs /run
      shift
      exec "$@"
      """;

  private final Process holder;
  private final SocketRelay outside;
  private final Path socketDir;
  private final HostDirs.Hold mountPoint;

  private SandboxNamespaces(
      Process holder, SocketRelay outside, Path socketDir, HostDirs.Hold mountPoint) {
    this.holder = holder;
    this.outside = outside;
    this.socketDir = socketDir;
    this.mountPoint = mountPoint;
  }

  /**
   * Namespaces whose {@code /var/lib/cni} is {@code cniStateDir} and whose {@code
   * 127.0.0.1:<apiServerPort>} is the machine's API server. Log of the holder: {@code log}.
   */
  public static SandboxNamespaces start(Path cniStateDir, int apiServerPort, Path log) {
    Prerequisites.requireRoot();
    for (String c : List.of("unshare", "nsenter", "ip", "mount")) {
      Prerequisites.requireCommand(c);
    }
    HostDirs.Hold mountPoint = null;
    Path socketDir = null;
    SocketRelay outside = null;
    try {
      Files.createDirectories(cniStateDir);
      Files.createDirectories(log.toAbsolutePath().getParent());
      // The bind needs a mount point; one made here goes again with the last sandbox on the
      // machine (another test JVM's may be bound there now).
      mountPoint = HostDirs.VAR_LIB_CNI.hold();
      Files.createDirectories(Path.of("/var/lib/cni"));
      // In /tmp: a unix socket's path has at most 107 bytes, a checkout's may be longer.
      socketDir = Files.createTempDirectory(Path.of("/tmp"), "ctrelay");
      Path socket = socketDir.resolve("api.sock");
      outside =
          SocketRelay.start(
              UnixDomainSocketAddress.of(socket),
              new InetSocketAddress("127.0.0.1", apiServerPort));
      Process holder = startHolder(cniStateDir, apiServerPort, socket, log);
      return new SandboxNamespaces(holder, outside, socketDir, mountPoint);
    } catch (IOException | RuntimeException e) {
      if (outside != null) {
        outside.close();
      }
      removeQuietly(socketDir);
      if (mountPoint != null) {
        mountPoint.close();
      }
      throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
    }
  }

  private static Process startHolder(Path cniStateDir, int port, Path socket, Path log)
      throws IOException {
    Path relayClasses;
    try {
      relayClasses =
          Path.of(SocketRelay.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "unshare",
                "--net",
                "--mount",
                "--",
                "sh",
                "-c",
                SETUP,
                "sh",
                cniStateDir.toString()));
    cmd.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-XX:+UseSerialGC",
            "-Xmx32m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            relayClasses.toString(),
            SocketRelay.class.getName(),
            "tcp:127.0.0.1:" + port,
            "unix:" + socket));
    Process holder =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
    String line = out.readLine();
    if (!SocketRelay.LISTENING.equals(line)) {
      holder.destroyForcibly();
      throw new IllegalStateException(
          "the sandbox namespaces did not come up (" + line + "): " + Files.readString(log));
    }
    return holder;
  }

  /** The command prefix that runs a program in these namespaces ({@code nsenter}, which execs). */
  public List<String> launcher() {
    return List.of("nsenter", "-t", Long.toString(holder.pid()), "-n", "-m", "--");
  }

  /**
   * Stops the relays and removes what this made on the machine. The namespaces end once the
   * programs run in them have exited too: stop those first.
   */
  @Override
  public void close() {
    holder.destroy();
    try {
      if (!holder.waitFor(10, TimeUnit.SECONDS)) {
        holder.destroyForcibly();
        holder.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    outside.close();
    removeQuietly(socketDir);
    mountPoint.close();
  }

  /** Removes an empty directory; one that is not empty holds what others put there, and stays. */
  private static void removeQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // not empty: not only ours
    }
  }
}
