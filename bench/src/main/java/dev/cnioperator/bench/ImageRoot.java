package dev.cnioperator.bench;

import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.client.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The node agent image's base root file system (the tarball {@code e2e/bin/provision} builds),
 * unpacked so that a benchmark runs the very JVM the image ships with {@code chroot}: Debian 13's
 * OpenJDK needs trixie's C library, which a Debian 12 host does not have. {@code /proc}, {@code
 * /dev} and the host directories the agent reads are mounted at their own paths inside; {@link
 * #close} unmounts them.
 */
final class ImageRoot implements AutoCloseable {
  private final Path root;
  private final Path java;

  private ImageRoot(Path root, Path java) {
    this.root = root;
    this.java = java;
  }

  /** Unpacks the agent's base image under {@code dir} and mounts {@code shared} inside it. */
  static ImageRoot unpack(Path dir, List<Path> shared) throws IOException {
    Path tar = ToolPaths.baseImageDir().resolve("node-agent-base.tar");
    Path root = dir.resolve("image-root");
    // A run that died may have left its mounts: deleting through a bind mount of /dev or of the
    // work dir would delete the host's files.
    unmountUnder(root);
    BenchCluster.deleteTree(root);
    Files.createDirectories(root);
    // A `docker save` tarball of one layer (e2e/bin/provision's pack_image).
    Commands.run("tar", "-C", root.toString(), "-xf", tar.toString(), "--wildcards", "*/layer.tar")
        .orThrow("tar");
    Path layer;
    try (Stream<Path> found = Files.list(root)) {
      layer =
          found
              .map(p -> p.resolve("layer.tar"))
              .filter(Files::isRegularFile)
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no layer in " + tar));
    }
    Commands.run("tar", "-C", root.toString(), "-xf", layer.toString()).orThrow("tar");
    BenchCluster.deleteTree(layer.getParent());
    Path java;
    try (Stream<Path> homes = Files.list(root.resolve("usr/lib/jvm"))) {
      java =
          homes
              .map(h -> h.resolve("bin/java"))
              .filter(Files::isExecutable)
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("no java in " + tar));
    }
    ImageRoot image = new ImageRoot(root, Path.of("/").resolve(root.relativize(java)));
    try {
      // The root a mount point of its own, as a container's is: `ip netns` (the agent's probe)
      // remounts "/" as a slave, which fails in a plain directory.
      image.mount("the root", Path.of("/"), "--bind", root.toString());
      image.mount("proc", Path.of("/proc"), "-t", "proc", "proc");
      image.bind(Path.of("/dev"));
      for (Path p : shared) {
        image.bind(p);
      }
    } catch (RuntimeException e) {
      image.close();
      throw e;
    }
    return image;
  }

  /** The command that starts the image's {@code java} in this root. */
  List<String> javaCommand() {
    return List.of("chroot", root.toString(), java.toString());
  }

  /**
   * Puts the kubeconfig's token and CA certificate where a pod has its ServiceAccount's, and
   * returns the environment a pod's containers get, so the agent configures its client in-cluster
   * as the DaemonSet's does (no kubeconfig to parse).
   */
  Map<String, String> serviceAccount(Path kubeconfig) throws IOException {
    Config config = LocalControlPlane.readKubeconfig(kubeconfig);
    Path dir = root.resolve("run/secrets/kubernetes.io/serviceaccount");
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("token"), required(config.getAutoOAuthToken(), "token", kubeconfig));
    Files.copy(
        Path.of(required(config.getCaCertFile(), "certificate-authority", kubeconfig)),
        dir.resolve("ca.crt"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(dir.resolve("namespace"), "kube-system");
    URI server = URI.create(required(config.getMasterUrl(), "server", kubeconfig));
    return Map.of(
        "KUBERNETES_SERVICE_HOST", server.getHost(),
        "KUBERNETES_SERVICE_PORT", Integer.toString(server.getPort()));
  }

  private static String required(String v, String key, Path kubeconfig) {
    if (v == null || v.isEmpty()) {
      throw new IllegalStateException("no " + key + " in " + kubeconfig);
    }
    return v;
  }

  /** The image's JVM, {@code java -version}'s first line. */
  String version() {
    String out = Commands.run("chroot", root.toString(), java.toString(), "-version").stderr();
    return out.lines().findFirst().orElse("?");
  }

  private void bind(Path hostDir) {
    mount(hostDir.toString(), hostDir, "--bind", hostDir.toString());
  }

  /** {@code mount ARGS... <root>/AT}; {@code at} is an absolute path as seen inside the root. */
  private void mount(String what, Path at, String... args) {
    Path target = at.getNameCount() == 0 ? root : root.resolve(at.toString().substring(1));
    try {
      Files.createDirectories(target);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> cmd = new ArrayList<>(List.of("mount"));
    cmd.addAll(List.of(args));
    cmd.add(target.toString());
    Commands.run(cmd).orThrow("mount " + what + " at " + target);
  }

  /** Unmounts {@code root} and every mount point under it, deepest first; fails if one stays. */
  private static void unmountUnder(Path root) throws IOException {
    String prefix = root.toAbsolutePath() + "/";
    for (int attempt = 0; attempt < 2; attempt++) {
      List<String> under =
          Files.readAllLines(Path.of("/proc/self/mounts")).stream()
              .map(line -> line.split(" ")[1])
              .filter(m -> m.startsWith(prefix) || m.equals(root.toAbsolutePath().toString()))
              .sorted(Comparator.reverseOrder())
              .toList();
      if (under.isEmpty()) {
        return;
      }
      for (String m : under) {
        Commands.run("umount", "-l", m);
      }
    }
    throw new IllegalStateException("mounts left under " + root + "; unmount them by hand");
  }

  /**
   * Unmounts everything mounted in the root, its own mounts and the agents' ({@code ip netns} makes
   * /run/netns a mount point), deepest first; the unpacked files stay until the next run.
   */
  @Override
  public void close() {
    try {
      unmountUnder(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
