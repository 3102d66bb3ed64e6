package dev.cnioperator.testkit.containerd;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.testkit.Commands;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;

/**
 * An image of one layer, written as an OCI image layout tarball that {@code ctr images import}
 * reads: how the tests put programs they built on a node that has no registry to pull from (the
 * sandbox image, Istio's CNI installer).
 */
public final class OciImage {
  private static final String MANIFEST_TYPE = "application/vnd.oci.image.manifest.v1+json";

  private OciImage() {}

  /** One file of the layer: its path in the image (no leading slash), mode and content. */
  public record File(String path, int mode, byte[] content) {}

  /**
   * The name an image tarball written by {@link #write} carries ({@code io.containerd.image.name}
   * of its index, which {@code ctr images import} names it after).
   */
  public static String name(Path tarball) {
    String index =
        Commands.run("tar", "-xOf", tarball.toString(), "index.json")
            .orThrow("tar -xOf " + tarball + " index.json")
            .stdout();
    try {
      String name =
          new ObjectMapper()
              .readTree(index)
              .at("/manifests/0/annotations")
              .path("io.containerd.image.name")
              .asText("");
      if (name.isEmpty()) {
        throw new IllegalArgumentException(tarball + " names no image in its index.json");
      }
      return name;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(tarball + "'s index.json is not JSON", e);
    }
  }

  /**
   * Writes the image {@code name} ({@code repository:tag}) of {@code files}, run as {@code
   * entrypoint}, to {@code tarball}; returns it.
   */
  public static Path write(String name, List<File> files, List<String> entrypoint, Path tarball)
      throws IOException {
    try (OutputStream out = Files.newOutputStream(tarball)) {
      writeLayout(name, files, entrypoint, out);
    }
    return tarball;
  }

  static void writeLayout(String name, List<File> files, List<String> entrypoint, OutputStream out)
      throws IOException {
    byte[] layerTar = tar(files);
    byte[] layer = gzip(layerTar);
    String command = entrypoint.stream().map(a -> "\"" + a + "\"").collect(Collectors.joining(","));
    byte[] config =
        """
        {"architecture":"amd64","os":"linux",\
        "config":{"Entrypoint":[%s],"WorkingDir":"/"},\
        "rootfs":{"type":"layers","diff_ids":["%s"]}}"""
            .formatted(command, digest(layerTar))
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
                name,
                name.substring(name.lastIndexOf(':') + 1))
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

  private static byte[] tar(List<File> files) throws IOException {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    try (TarWriter tar = new TarWriter(buf)) {
      for (File f : files) {
        tar.addFile(f.path(), f.mode(), f.content());
      }
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
