package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class PauseImageTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] BINARY =
      "not really an ELF, just bytes".getBytes(StandardCharsets.UTF_8);

  @Test
  void layoutIndexPointsAtAManifestWhoseConfigAndLayerAreItsBlobs() throws IOException {
    Map<String, Entry> layout = untar(layout());

    assertThat(layout).containsKeys("oci-layout", "index.json");
    JsonNode index = JSON.readTree(layout.get("index.json").content());
    JsonNode manifestRef = index.path("manifests").get(0);
    assertThat(manifestRef.path("annotations").path("io.containerd.image.name").asText())
        .isEqualTo(PauseImage.NAME);
    byte[] manifestBytes = blob(layout, manifestRef.path("digest").asText());
    assertThat(manifestRef.path("size").asInt()).isEqualTo(manifestBytes.length);

    JsonNode manifest = JSON.readTree(manifestBytes);
    byte[] config = blob(layout, manifest.path("config").path("digest").asText());
    byte[] layer = blob(layout, manifest.path("layers").get(0).path("digest").asText());
    assertThat(manifest.path("layers").get(0).path("size").asInt()).isEqualTo(layer.length);

    byte[] layerTar = new GZIPInputStream(new ByteArrayInputStream(layer)).readAllBytes();
    JsonNode configJson = JSON.readTree(config);
    assertThat(configJson.path("rootfs").path("diff_ids").get(0).asText())
        .isEqualTo(PauseImage.digest(layerTar));
    assertThat(configJson.path("config").path("Entrypoint").get(0).asText()).isEqualTo("/pause");

    Entry pause = untar(layerTar).get("pause");
    assertThat(pause.content()).isEqualTo(BINARY);
    assertThat(pause.mode()).isEqualTo(0755);
  }

  @Test
  void theSameBinaryGivesTheSameBytes() throws IOException {
    assertThat(layout()).isEqualTo(layout());
  }

  private static byte[] layout() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PauseImage.writeLayout(BINARY, out);
    return out.toByteArray();
  }

  /** A blob is stored under its digest, and its bytes hash to it. */
  private static byte[] blob(Map<String, Entry> layout, String digest) {
    Entry e = layout.get("blobs/sha256/" + digest.substring("sha256:".length()));
    assertThat(e).as("blob " + digest).isNotNull();
    assertThat(PauseImage.digest(e.content())).isEqualTo(digest);
    return e.content();
  }

  private record Entry(int mode, byte[] content) {}

  /** Reads ustar headers back, checking each header's checksum. */
  private static Map<String, Entry> untar(byte[] tar) {
    Map<String, Entry> entries = new LinkedHashMap<>();
    int at = 0;
    while (at + 512 <= tar.length && tar[at] != 0) {
      byte[] header = Arrays.copyOfRange(tar, at, at + 512);
      String name = field(header, 0, 100);
      int size = Integer.parseInt(field(header, 124, 12), 8);
      long stored = Long.parseLong(field(header, 148, 7), 8);
      Arrays.fill(header, 148, 156, (byte) ' ');
      long sum = 0;
      for (byte b : header) {
        sum += b & 0xff;
      }
      assertThat(stored).as("checksum of " + name).isEqualTo(sum);
      entries.put(
          name,
          new Entry(
              Integer.parseInt(field(header, 100, 8), 8),
              Arrays.copyOfRange(tar, at + 512, at + 512 + size)));
      at += 512 + (size + 511) / 512 * 512;
    }
    return entries;
  }

  private static String field(byte[] header, int offset, int length) {
    int end = offset;
    while (end < offset + length && header[end] != 0) {
      end++;
    }
    return new String(header, offset, end - offset, StandardCharsets.US_ASCII).strip();
  }
}
