package dev.cnioperator.testkit.containerd;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code containerd-shim-runc-v2} processes one test containerd started, found by the {@code
 * -address} argument that names that containerd's socket. Shims outlive containerd (that is how a
 * node keeps its pods through a runtime restart), so the fixture kills them itself when the test is
 * over, together with the sandbox processes they run.
 */
final class ShimProcesses {
  /**
   * Every release (1.6 to 2.x) puts its shims' sockets here, whatever its own state dir is; in a
   * node's mount namespace that is the node's own socket dir, bound there.
   */
  private static final Path SHIM_SOCKET_DIR = Path.of("/run/containerd/s");

  /** A running shim: its pid and the sandbox (or container) id it serves. */
  record Shim(long pid, String id) {}

  private ShimProcesses() {}

  /** The live shims whose {@code -address} is {@code socket}. */
  static List<Shim> of(Path socket) {
    List<Shim> shims = new ArrayList<>();
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        commandLine(proc)
            .filter(argv -> argv.length > 0 && argv[0].endsWith("containerd-shim-runc-v2"))
            .filter(argv -> socket.toString().equals(argument(argv, "-address")))
            .ifPresent(
                argv ->
                    shims.add(
                        new Shim(
                            Long.parseLong(proc.getFileName().toString()), argument(argv, "-id"))));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return shims;
  }

  /** SIGKILLs each shim's descendants (the sandbox processes) and then the shim; waits for them. */
  static void killAll(List<Shim> shims) {
    List<ProcessHandle> killed = new ArrayList<>();
    for (Shim shim : shims) {
      ProcessHandle.of(shim.pid())
          .ifPresent(
              handle -> {
                handle.descendants().forEach(d -> kill(d, killed));
                kill(handle, killed);
              });
    }
    for (ProcessHandle p : killed) {
      try {
        p.onExit().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        // Still there after SIGKILL and five seconds: the close() report lists what is left.
      }
    }
  }

  /**
   * The socket file a shim for {@code id} listens on, as containerd (1.6 to 2.x) names it: the
   * sha256 of {@code <containerd address>/<namespace>/<id>} under {@code /run/containerd/s}. A shim
   * killed with SIGKILL leaves it behind.
   */
  static Path socketFile(Path containerdSocket, String namespace, String id) {
    String key = containerdSocket.resolve(namespace).resolve(id).toString();
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return SHIM_SOCKET_DIR.resolve(HexFormat.of().formatHex(d));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }

  private static void kill(ProcessHandle p, List<ProcessHandle> killed) {
    if (p.destroyForcibly()) {
      killed.add(p);
    }
  }

  private static Optional<String[]> commandLine(Path proc) {
    try {
      byte[] raw = Files.readAllBytes(proc.resolve("cmdline"));
      return Optional.of(new String(raw, StandardCharsets.UTF_8).split("\0"));
    } catch (IOException e) {
      return Optional.empty(); // the process is gone, or not ours to read
    }
  }

  private static String argument(String[] argv, String flag) {
    for (int i = 0; i + 1 < argv.length; i++) {
      if (argv[i].equals(flag)) {
        return argv[i + 1];
      }
    }
    return null;
  }
}
