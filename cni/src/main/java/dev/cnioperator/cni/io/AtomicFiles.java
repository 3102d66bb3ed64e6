package dev.cnioperator.cni.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * The one way files are replaced on a node, by the cni library's result cache and the agent alike:
 * write a temporary file in the target's directory, fsync it, rename it over the target (atomic,
 * never a copy: a reader sees the old file or the new one, whole), then fsync the directory so the
 * rename itself survives a crash; a deletion fsyncs the directory too. A file system that cannot
 * rename atomically is an error, not a reason to fall back to a non-atomic move.
 *
 * <p>{@link Durability#NONE} skips both fsyncs, as libcni does (tests and benchmarks only): the
 * rename stays atomic, but after a crash the file may be empty or the old one.
 */
public final class AtomicFiles {
  /** Whether a replaced file survives a crash right after the call. */
  public enum Durability {
    /** fsync of the file before the rename and of the directory after it. */
    FSYNC,
    /** No fsync: atomic for readers, not durable across a crash. */
    NONE
  }

  private AtomicFiles() {}

  /**
   * Writes {@code content} into {@code temp} (an existing file in {@code target}'s directory,
   * created with the mode wanted), then replaces {@code target} with it. The caller deletes {@code
   * temp} if this throws.
   */
  public static void write(Path temp, Path target, byte[] content, Durability durability)
      throws IOException {
    try (FileChannel ch =
        FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buf = ByteBuffer.wrap(content);
      while (buf.hasRemaining()) {
        ch.write(buf);
      }
    }
    replace(temp, target, null, durability);
  }

  /**
   * Renames {@code temp} over {@code target} atomically, after setting {@code mode} (null keeps the
   * temporary's) and, durably, fsyncing the file before and the directory after.
   */
  public static void replace(
      Path temp, Path target, Set<PosixFilePermission> mode, Durability durability)
      throws IOException {
    if (mode != null) {
      Files.setPosixFilePermissions(temp, mode);
    }
    if (durability == Durability.FSYNC) {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        ch.force(true);
      }
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    if (durability == Durability.FSYNC) {
      fsyncDirectory(target.getParent());
    }
  }

  /**
   * Deletes {@code file} if it exists and, durably, fsyncs its directory so the removal survives a
   * crash; false when there was no file.
   */
  public static boolean delete(Path file, Durability durability) throws IOException {
    boolean existed = Files.deleteIfExists(file);
    if (existed && durability == Durability.FSYNC) {
      fsyncDirectory(file.getParent());
    }
    return existed;
  }

  /** Makes a rename, create or delete in {@code dir} durable. */
  public static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
