package dev.cnioperator.testkit.containerd;

import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.zip.GZIPOutputStream;

/**
 * The sandbox ("pause") image of the test containerd, made here because there is no registry: a
 * static program compiled with gcc, packed as the one layer of an OCI image in an OCI image layout
 * tarball that {@code ctr images import} reads.
 */
final class PauseImage {
  /** The name containerd's CRI plugin is told to use as {@code sandbox_image}. */
  static final String NAME = "cni-operator.test/pause:1";

  private static final String SOURCE = "pause.c";
  private static final String MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";

  private PauseImage() {}

  /** Compiles the pause program and writes the image tarball into {@code dir}; returns its path. */
  static Path build(Path dir) {
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
    byte[] layerTar = tar(pauseBinary);
    byte[] layer = gzip(layerTar);
    byte[] config =
        """
        {"architecture":"amd64","os":"linux",\
        "config":{"Entrypoint":["/pause"],"WorkingDir":"/"},\
        "rootfs":{"type":"layers","diff_ids":["%s"]}}"""
            .formatted(digest(layerTar))
            .getBytes(StandardCharsets.UTF_8);
    byte[] manifest =
        """
        {"schemaVersion":2,"mediaType":"%s",\
        "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"%s","size":%d},\
        "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip",\
        "digest":"%s","size":%d}]}"""
            .formatted(MANIFEST_TYPE, digest(config), config.length, digest(layer), layer.length)
            .getBytes(StandardCharsets.UTF_8);
    // ctr names the imported image after io.containerd.image.name; the OCI ref name is the tag.
    byte[] index =
        """
        {"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",\
        "manifests":[{"mediaType":"%s","digest":"%s","size":%d,\
        "platform":{"architecture":"amd64","os":"linux"},\
        "annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}"""
            .formatted(
                MANIFEST_TYPE,
                digest(manifest),
                manifest.length,
                NAME,
                NAME.substring(NAME.lastIndexOf(':') + 1))
            .getBytes(StandardCharsets.UTF_8);
    try (TarWriter tar = new TarWriter(out)) {
      tar.addFile(
          "oci-layout",
          0644,
          "{\"imageLayoutVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8));
      tar.addFile("index.json", 0644, index);
      for (byte[] blob : new byte[][] {manifest, config, layer}) {
        tar.addFile("blobs/sha256/" + digest(blob).substring("sha256:".length()), 0644, blob);
      }
    }
  }

  private static byte[] tar(byte[] pauseBinary) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    try (TarWriter tar = new TarWriter(buf)) {
      tar.addFile("pause", 0755, pauseBinary);
    }
    return buf.toByteArray();
  }

  private static byte[] gzip(byte[] data) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(buf)) {
      gz.write(data);
    }
    return buf.toByteArray();
  }

  static String digest(byte[] data) {
    try {
      return "sha256:"
          + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-256", e);
    }
  }
}
