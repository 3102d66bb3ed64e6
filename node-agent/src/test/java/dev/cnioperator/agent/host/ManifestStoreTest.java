package dev.cnioperator.agent.host;

import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Multus;
import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Runtime;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The manifest on disk: the two conf dirs kept apart. */
class ManifestStoreTest {
  @TempDir Path dir;

  private ManifestStore store() {
    return new ManifestStore(new DiskHostFiles(), dir.resolve("manifest.json"));
  }

  @Test
  void multusFilesAreKeptApartUnderTheirOwnKey() throws Exception {
    Manifest m =
        Manifest.empty()
            .withConflist(Runtime, "50-a.conflist", "aa", "a")
            .withConflist(Multus, "50-a.conflist", "mm", "m");
    store().save(m);
    JsonNode json = new ObjectMapper().readTree(dir.resolve("manifest.json").toFile());
    assertThat(json.get("conflists").get("50-a.conflist").get("sha256").asText()).isEqualTo("aa");
    assertThat(json.get("multusConflists").get("50-a.conflist").get("sha256").asText())
        .isEqualTo("mm");
    assertThat(store().load()).isEqualTo(m);

    Manifest dropped = m.withoutConflist(Multus, "50-a.conflist");
    assertThat(dropped.conflist(Runtime, "50-a.conflist")).isPresent();
    assertThat(dropped.conflists(Multus)).isEmpty();
  }
}
