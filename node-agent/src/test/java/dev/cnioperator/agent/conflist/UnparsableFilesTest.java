package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.UnparsableFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnparsableFilesTest {
  private static final String GOOD =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"g\",\"plugins\":[{\"type\":\"bridge\"}]}";
  private static final String NO_PLUGINS =
      "{\"cniVersion\":\"1.0.0\",\"name\":\"e\",\"plugins\":[]}";

  @TempDir Path dir;

  @Test
  void everyForeignFileMultusReadsAndCannotParseIsReportedWithItsPathInMultussOrder()
      throws Exception {
    Files.writeString(dir.resolve("10-good.conflist"), GOOD);
    Files.writeString(dir.resolve("20-empty.conflist"), NO_PLUGINS);
    // A list saved as .conf: libcni reads a .conf as a single plugin, which has no type.
    Files.writeString(dir.resolve("05-list.conf"), GOOD);
    // A dot file is read all the same.
    Files.writeString(dir.resolve(".hidden.json"), "not json");
    assertThat(UnparsableFiles.in(dir, name -> false))
        .extracting(UnparsableFile::getFile)
        .containsExactly(
            dir.resolve(".hidden.json").toString(),
            dir.resolve("05-list.conf").toString(),
            dir.resolve("20-empty.conflist").toString());
    assertThat(UnparsableFiles.in(dir, name -> false).get(2).getError())
        .isEqualTo("error parsing configuration list: no plugins in list");
  }

  @Test
  void filesMultusDoesNotReadAndTheAgentsOwnAreLeftOut() throws Exception {
    Files.writeString(dir.resolve("50-ours.conflist"), NO_PLUGINS);
    Files.writeString(dir.resolve(".50-x.conflist.cni-node-agent-1234.tmp"), "{");
    Files.writeString(dir.resolve("50-x.conflist.bak"), "{");
    Files.createDirectories(dir.resolve("sub.conf"));
    assertThat(UnparsableFiles.in(dir, "50-ours.conflist"::equals)).isEmpty();
  }

  @Test
  void aMissingDirectoryHoldsNothingUnparsable() {
    assertThat(UnparsableFiles.in(dir.resolve("absent"), name -> false)).isEqualTo(List.of());
  }
}
