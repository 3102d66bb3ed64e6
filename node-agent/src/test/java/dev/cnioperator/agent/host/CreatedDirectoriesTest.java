package dev.cnioperator.agent.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CreatedDirectoriesTest {
  private final DiskHostFiles files = new DiskHostFiles();

  @TempDir Path root;
  private Path etcCni;
  private Path multus;
  private Path multusConfDir;
  private Path record;

  @BeforeEach
  void node() throws IOException {
    // As on a node with the runtime's conf dir: /etc/cni/net.d, no Multus.
    etcCni = root.resolve("etc/cni");
    Files.createDirectories(etcCni.resolve("net.d"));
    multus = etcCni.resolve("multus");
    multusConfDir = multus.resolve("net.d");
    record = root.resolve("var/lib/cni-operator/created-directories.json");
  }

  /** A fresh instance each time, as after a restart of the agent: only the record is kept. */
  private CreatedDirectories dirs() {
    return new CreatedDirectories(files, multusConfDir, record);
  }

  @Test
  void makesTheMissingDirectoriesAndRemovesThoseAndOnlyThoseOnceEmpty() throws IOException {
    dirs().make();
    assertThat(multusConfDir).isDirectory();
    assertThat(dirs().load()).containsExactlyInAnyOrder(multus, multusConfDir);

    dirs().removeEmpty();
    assertThat(multus).doesNotExist();
    assertThat(etcCni.resolve("net.d")).as("there before: not the agent's").isDirectory();
    assertThat(record).as("nothing left to record").doesNotExist();
  }

  @Test
  void aDirectoryThatWasThereBeforeIsNeverRemovedEvenEmpty() throws IOException {
    // Multus (or an admin) made its directory, without its net.d.
    Files.createDirectories(multus);
    dirs().make();
    assertThat(dirs().load()).containsExactly(multusConfDir);

    dirs().removeEmpty();
    assertThat(multusConfDir).doesNotExist();
    assertThat(multus).isDirectory();

    Files.createDirectories(multusConfDir);
    dirs().make();
    dirs().removeEmpty();
    assertThat(multusConfDir).isDirectory();
    assertThat(record).doesNotExist();
  }

  @Test
  void oneHoldingAnothersFileStaysRecordedAndGoesOnceEmpty() throws IOException {
    dirs().make();
    Path theirs = Files.writeString(multusConfDir.resolve("90-theirs.conflist"), "{}");

    dirs().removeEmpty();
    assertThat(theirs).exists();
    assertThat(dirs().load()).containsExactlyInAnyOrder(multus, multusConfDir);

    Files.delete(theirs);
    dirs().removeEmpty();
    assertThat(multus).doesNotExist();
  }

  @Test
  void makingWhatIsThereChangesNothing() throws IOException {
    dirs().make();
    byte[] before = Files.readAllBytes(record);
    dirs().make();
    assertThat(Files.readAllBytes(record)).isEqualTo(before);
  }

  @Test
  void aSymbolicLinkPutInPlaceOfOneIsNeitherFollowedNorRemoved() throws IOException {
    dirs().make();
    Path elsewhere = Files.createDirectories(root.resolve("elsewhere"));
    Files.delete(multusConfDir);
    Files.createSymbolicLink(multusConfDir, elsewhere);

    dirs().removeEmpty();
    assertThat(Files.isSymbolicLink(multusConfDir)).isTrue();
    assertThat(elsewhere).isDirectory();
    assertThat(dirs().load())
        .as("the link is not a directory of the agent's")
        .containsExactly(multus);
  }

  @Test
  void anUnreadableRecordRemovesNothing() throws IOException {
    Files.createDirectories(multusConfDir);
    Files.createDirectories(record.getParent());
    Files.writeString(record, "{\"directories\": [\"" + multusConfDir);

    dirs().removeEmpty();
    assertThat(multusConfDir).isDirectory();
  }
}
