package dev.cnioperator.testkit.containerd;

import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The sandbox ("pause") image of the test runtimes, made here because there is no online registry:
 * a static program compiled with gcc, packed as the one layer of an OCI image in an OCI image
 * layout tarball that {@code ctr images import} reads (containerd) or {@code skopeo copy
 * oci-archive:} pushes to the test's registry (CRI-O, which pulls it).
 */
public final class PauseImage {
  /** The name containerd's CRI plugin is told to use as {@code sandbox_image}. */
  public static final String NAME = "cni-operator.test/pause:1";

  private static final String SOURCE = "pause.c";

  private PauseImage() {}

  /** Compiles the pause program and writes the image tarball into {@code dir}; returns its path. */
  public static Path build(Path dir) {
    Prerequisites.requireCommand("gcc");
    try {
      Path source = dir.resolve(SOURCE);
      try (InputStream in = PauseImage.class.getResourceAsStream(SOURCE)) {
        if (in == null) {
          throw new IllegalStateException("resource " + SOURCE + " is missing from testkit");
        }
        Files.write(source, in.readAllBytes());
      }
      Path binary = dir.resolve("pause");
      Commands.run("gcc", "-static", "-Os", "-s", "-o", binary.toString(), source.toString())
          .orThrow("gcc -static " + source + " (is libc6-dev installed?)");
      Path tarball = dir.resolve("pause-image.tar");
      try (OutputStream out = Files.newOutputStream(tarball)) {
        writeLayout(Files.readAllBytes(binary), out);
      }
      return tarball;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot build the pause image in " + dir, e);
    }
  }

  /** An OCI image layout holding one image whose only layer is {@code /pause}. */
  static void writeLayout(byte[] pauseBinary, OutputStream out) throws IOException {
    OciImage.writeLayout(
        NAME, List.of(new OciImage.File("pause", 0755, pauseBinary)), List.of("/pause"), out);
  }

  static String digest(byte[] data) {
    return OciImage.digest(data);
  }
}
