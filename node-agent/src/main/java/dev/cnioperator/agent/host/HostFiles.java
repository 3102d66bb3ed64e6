package dev.cnioperator.agent.host;

import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The agent's one seam to the node's directories. Every change it makes goes through here, so the
 * rules "atomic, in the same directory, durable" live in one place.
 */
public interface HostFiles {

  /** The file's bytes, or empty when it does not exist. */
  Optional<byte[]> read(Path file) throws IOException;

  /** The lowercase hex sha256 of the file's bytes, or empty when it does not exist. */
  default Optional<String> sha256(Path file) throws IOException {
    return read(file).map(Sha256::hex);
  }

  /**
   * Replaces {@code file} with {@code content} so that a reader sees either the old complete file
   * or the new complete one: a temporary file in the same directory, fsync, rename, fsync of the
   * directory.
   */
  void writeAtomically(Path file, byte[] content, boolean executable) throws IOException;

  /**
   * Moves a complete, already verified file from the same directory into place with a rename, then
   * fsyncs the directory. Used for plugin binaries, which are written to a temporary file first and
   * hashed as they are written: {@code sha256} is the digest of those bytes, which {@link #sha256}
   * may answer for {@code target} until it changes, instead of reading it all again.
   */
  void moveAtomically(Path source, Path target, boolean executable, String sha256)
      throws IOException;

  /** A temporary file in {@code dir} whose name no runtime reads (it ends in {@code .tmp}). */
  Path newTemporaryFile(Path dir, String forName) throws IOException;

  /** Deletes the file; true when it existed. The directory is fsynced after. */
  boolean delete(Path file) throws IOException;

  /** The names of the regular files in {@code dir}, sorted; empty when it does not exist. */
  List<String> list(Path dir) throws IOException;

  /** Creates the directory and its parents when missing. */
  void createDirectories(Path dir) throws IOException;

  /** Whether {@code path} is a directory, or a symbolic link to one. */
  boolean isDirectory(Path path);

  /**
   * Removes {@code dir} when it is an empty directory, then fsyncs its parent. False when it is a
   * directory with something in it; true when no directory is left at the path (removed now, or
   * none there: a symbolic link or a file there is not one, and is not touched).
   */
  boolean deleteEmptyDirectory(Path dir) throws IOException;

  /** Removes temporary files this agent left behind in {@code dir} when it was killed mid-write. */
  void removeLeftoverTemporaryFiles(Path dir) throws IOException;
}
