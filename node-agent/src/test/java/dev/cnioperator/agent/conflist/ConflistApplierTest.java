package dev.cnioperator.agent.conflist;

import static dev.cnioperator.api.v1alpha1.ConfigDirectory.Runtime;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.CreatedDirectories;
import dev.cnioperator.agent.host.DiskHostFiles;
import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.HostPaths;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestStore;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.api.v1alpha1.NetworkState;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConflistApplierTest {

  /** The real disk, except that conflist writes fail as on a full file system. */
  private static final class FullConfDir implements HostFiles {
    private final DiskHostFiles disk = new DiskHostFiles();
    private final Path confDir;

    FullConfDir(Path confDir) {
      this.confDir = confDir;
    }

    @Override
    public Optional<byte[]> read(Path file) throws IOException {
      return disk.read(file);
    }

    @Override
    public void writeAtomically(Path file, byte[] content, boolean executable) throws IOException {
      if (file.getParent().equals(confDir)) {
        throw new FileSystemException(file.toString(), null, "No space left on device");
      }
      disk.writeAtomically(file, content, executable);
    }

    @Override
    public void moveAtomically(Path source, Path target, boolean executable, String sha256)
        throws IOException {
      disk.moveAtomically(source, target, executable, sha256);
    }

    @Override
    public Path newTemporaryFile(Path dir, String forName) throws IOException {
      return disk.newTemporaryFile(dir, forName);
    }

    @Override
    public boolean delete(Path file) throws IOException {
      return disk.delete(file);
    }

    @Override
    public List<String> list(Path dir) throws IOException {
      return disk.list(dir);
    }

    @Override
    public void createDirectories(Path dir) throws IOException {
      disk.createDirectories(dir);
    }

    @Override
    public boolean isDirectory(Path path) {
      return disk.isDirectory(path);
    }

    @Override
    public boolean deleteEmptyDirectory(Path dir) throws IOException {
      return disk.deleteEmptyDirectory(dir);
    }

    @Override
    public void removeLeftoverTemporaryFiles(Path dir) throws IOException {
      disk.removeLeftoverTemporaryFiles(dir);
    }
  }

  private static DesiredConflist net(String name, String content) {
    return new DesiredConflist(
        name,
        "50-" + name + ".conflist",
        Sha256.hex(content.getBytes(StandardCharsets.UTF_8)),
        content);
  }

  @Test
  void failedWriteFailsOnlyItsNetworkKeepsTheOldFileAndNamesTheReason(@TempDir Path root)
      throws Exception {
    HostPaths paths = HostPaths.under(root, root.resolve("plugins"));
    Path conf = Files.createDirectories(paths.confDir());
    ManifestStore store =
        new ManifestStore(new DiskHostFiles(), root.resolve("state/manifest.json"));
    DesiredConflist v1 = net("a", "{1}");
    DesiredConflist v2 = net("a", "{2}");
    DesiredConflist other = net("b", "{b}");
    Files.writeString(conf.resolve(v1.fileName()), "{1}");
    store.save(Manifest.empty().withConflist(Runtime, v1.fileName(), v1.sha256(), "a"));

    List<NetworkOutcome> outcomes =
        new ConflistApplier(
                new FullConfDir(conf),
                store,
                paths,
                new CreatedDirectories(
                    new DiskHostFiles(), paths.multusConfDir(), paths.createdDirectoriesFile()))
            .apply(
                List.of(
                    new ConflistAction.Write(v2, WriteReason.UPDATE),
                    new ConflistAction.Keep(other)),
                store.load())
            .outcomes();

    assertThat(outcomes.get(0).state()).isEqualTo(NetworkState.Failed);
    assertThat(outcomes.get(0).message()).contains("No space left on device");
    assertThat(outcomes.get(0).appliedSha256()).isEqualTo(v1.sha256());
    assertThat(outcomes.get(1).state()).isEqualTo(NetworkState.Applied);
    assertThat(Files.readString(conf.resolve(v1.fileName()))).isEqualTo("{1}");
    // The manifest still owns the old version, so the next pass updates rather than conflicts.
    assertThat(
            store.load().conflist(Runtime, v1.fileName()).orElseThrow().isOwnVersion(v1.sha256()))
        .isTrue();
  }
}
