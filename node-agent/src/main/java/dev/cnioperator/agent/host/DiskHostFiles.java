package dev.cnioperator.agent.host;

import dev.cnioperator.cni.io.AtomicFiles;
import dev.cnioperator.cni.io.Sha256;
import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** {@link HostFiles} on the real file system, with fsync where durability needs it. */
public final class DiskHostFiles implements HostFiles {

  /** A file's identity and change stamps: while they stay equal, its bytes were not touched. */
  private record Stamp(
      Object device, Object inode, long size, FileTime modified, FileTime changed) {
    /** The same file with the same bytes, as far as a stat can tell, whatever its ctime. */
    boolean sameFileAndBytes(Stamp other) {
      return device.equals(other.device)
          && inode.equals(other.inode)
          && size == other.size
          && modified.equals(other.modified);
    }
  }

  private final Map<Path, Map.Entry<Stamp, String>> digests = new ConcurrentHashMap<>();

  /**
   * Hashes a file once per version of it. A pass looks at every plugin binary and conflist, which
   * are nearly always unchanged, and reading each binary again on every pass cost every node tens
   * of megabytes per change. Any write, truncate, chmod or rename over the file changes its ctime
   * or its inode, so a changed file is always read and hashed again.
   */
  @Override
  public Optional<String> sha256(Path file) throws IOException {
    Stamp before = stamp(file);
    if (before == null) {
      digests.remove(file);
      return Optional.empty();
    }
    Map.Entry<Stamp, String> known = digests.get(file);
    if (known != null && known.getKey().equals(before)) {
      return Optional.of(known.getValue());
    }
    String hex;
    try {
      hex = Sha256.hex(file);
    } catch (NoSuchFileException e) {
      digests.remove(file);
      return Optional.empty();
    }
    if (before.equals(stamp(file))) {
      digests.put(file, Map.entry(before, hex)); // not if it changed while it was being read
    }
    return Optional.of(hex);
  }

  private static Stamp stamp(Path file) throws IOException {
    try {
      Map<String, Object> a =
          Files.readAttributes(file, "unix:dev,ino,size,lastModifiedTime,ctime");
      return new Stamp(
          a.get("dev"),
          a.get("ino"),
          (Long) a.get("size"),
          (FileTime) a.get("lastModifiedTime"),
          (FileTime) a.get("ctime"));
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /** Marks our temporary files, so leftovers after a kill are recognisably ours to remove. */
  static final String TEMP_MARK = ".cni-node-agent-";

  private static final Set<PosixFilePermission> FILE_MODE =
      PosixFilePermissions.fromString("rw-r--r--");
  private static final Set<PosixFilePermission> EXECUTABLE_MODE =
      PosixFilePermissions.fromString("rwxr-xr-x");

  @Override
  public Optional<byte[]> read(Path file) throws IOException {
    try {
      return Optional.of(Files.readAllBytes(file));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  @Override
  public void writeAtomically(Path file, byte[] content, boolean executable) throws IOException {
    Path temp = newTemporaryFile(file.getParent(), file.getFileName().toString());
    try {
      Files.setPosixFilePermissions(temp, executable ? EXECUTABLE_MODE : FILE_MODE);
      AtomicFiles.write(temp, file, content, AtomicFiles.Durability.FSYNC);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  @Override
  public void moveAtomically(Path source, Path target, boolean executable, String sha256)
      throws IOException {
    Stamp written = stamp(source);
    AtomicFiles.replace(
        source, target, executable ? EXECUTABLE_MODE : FILE_MODE, AtomicFiles.Durability.FSYNC);
    // The rename keeps the file's inode, size and mtime (the chmod and the rename move only its
    // ctime). When they still match, target holds the bytes just hashed; anything else (a write
    // since, another file renamed over it) is read and hashed on the next sha256.
    Stamp now = stamp(target);
    if (written != null && now != null && written.sameFileAndBytes(now)) {
      digests.put(target, Map.entry(now, sha256));
    } else {
      digests.remove(target);
    }
  }

  @Override
  public Path newTemporaryFile(Path dir, String forName) throws IOException {
    // Leading dot and ".tmp" ending: libcni, containerd and CRI-O only read .conf/.conflist/.json.
    Path temp = dir.resolve("." + forName + TEMP_MARK + UUID.randomUUID() + ".tmp");
    // A fresh node may have no /opt/cni/bin yet: the first install makes it.
    Files.createDirectories(dir);
    return Files.createFile(temp, PosixFilePermissions.asFileAttribute(FILE_MODE));
  }

  @Override
  public boolean delete(Path file) throws IOException {
    return AtomicFiles.delete(file, AtomicFiles.Durability.FSYNC);
  }

  @Override
  public List<String> list(Path dir) throws IOException {
    List<String> names = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return names;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (Files.isRegularFile(p)) {
          names.add(p.getFileName().toString());
        }
      }
    }
    names.sort(null);
    return names;
  }

  @Override
  public void createDirectories(Path dir) throws IOException {
    Files.createDirectories(dir);
  }

  @Override
  public boolean isDirectory(Path path) {
    return Files.isDirectory(path);
  }

  @Override
  public boolean deleteEmptyDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return true;
    }
    try {
      Files.delete(dir);
    } catch (DirectoryNotEmptyException e) {
      return false;
    } catch (NoSuchFileException e) {
      return true;
    }
    AtomicFiles.fsyncDirectory(dir.getParent());
    return true;
  }

  @Override
  public void removeLeftoverTemporaryFiles(Path dir) throws IOException {
    for (String name : list(dir)) {
      if (name.startsWith(".") && name.contains(TEMP_MARK) && name.endsWith(".tmp")) {
        Files.deleteIfExists(dir.resolve(name));
      }
    }
  }
}
