package dev.cnioperator.agent.conflist;

import dev.cnioperator.api.v1alpha1.UnparsableFile;
import dev.cnioperator.cni.config.LibcniConfigFile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The files of Multus's configuration directory that Multus cannot parse. Multus (v4.2) looks up a
 * config-less NetworkAttachmentDefinition by reading every {@code .conf}, {@code .conflist} and
 * {@code .json} file there in file-name order with libcni 1.3 (dot files too, and symbolic links
 * whatever they point at), and the first that fails to parse ends the lookup: one bad file breaks
 * every such NetworkAttachmentDefinition on the node. Each is judged as libcni judges it ({@link
 * LibcniConfigFile}); the agent only reports them, it never touches a file that is not its own.
 */
public final class UnparsableFiles {
  private UnparsableFiles() {}

  /**
   * Every file of {@code dir} Multus reads and cannot parse, in the order Multus reads them; none
   * when {@code dir} does not exist or cannot be listed.
   *
   * @param ours whether a file name is one of the agent's own files as the agent wrote it: those
   *     are verified before they are written, and are not reported
   */
  public static List<UnparsableFile> in(Path dir, Predicate<String> ours) {
    List<UnparsableFile> out = new ArrayList<>();
    for (Path file : readByMultus(dir)) {
      if (ours.test(file.getFileName().toString())) {
        continue;
      }
      Optional<String> problem = LibcniConfigFile.problem(file);
      problem.ifPresent(p -> out.add(new UnparsableFile().setFile(file.toString()).setError(p)));
    }
    return out;
  }

  /** What libcni's {@code ConfFiles} lists: every entry but directories, by its last extension. */
  private static List<Path> readByMultus(Path dir) {
    List<Path> files = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return files;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
            && ConflistFileName.isReadByRuntimes(p.getFileName().toString())) {
          files.add(p);
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    files.sort(null);
    return files;
  }
}
