package dev.cnioperator.cni.cache;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.io.AtomicFiles;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * libcni's on-disk result cache: one file per attachment at {@code
 * <cacheDir>/results/<network>-<containerId>-<ifName>}, directory 0700, file 0600, so that
 * attachments made by containerd, CRI-O or cnitool can be CHECKed and DELeted here and the other
 * way round. Files are replaced as {@link AtomicFiles} does (temporary file, fsync, rename, fsync
 * of the directory), and removed as it does (fsync of the directory).
 */
public final class ResultCache {
  private static final Logger LOG = LoggerFactory.getLogger(ResultCache.class);

  /** libcni's default {@code CacheDir}. */
  public static final Path DEFAULT_DIR = Path.of("/var/lib/cni");

  private static final String TEMP_PREFIX = ".tmp-";

  private final Path resultsDir;
  private final AtomicFiles.Durability durability;

  /** A cache whose entries survive a crash right after {@link #write} (they are fsynced). */
  public ResultCache(Path cacheDir) {
    this(cacheDir, true);
  }

  /**
   * @param fsync false skips {@link AtomicFiles}' fsyncs, as libcni (which never fsyncs) does: a
   *     few milliseconds less per ADD, at the price of an entry that may be empty after a crash
   */
  public ResultCache(Path cacheDir, boolean fsync) {
    this.resultsDir = cacheDir.resolve("results");
    this.durability = fsync ? AtomicFiles.Durability.FSYNC : AtomicFiles.Durability.NONE;
  }

  /** The file that holds (or would hold) an attachment's entry. */
  public Path resultPath(String network, String containerId, String ifName) {
    requireFileNamePart("network name", network);
    requireFileNamePart("container id", containerId);
    requireFileNamePart("interface name", ifName);
    return resultsDir.resolve(network + "-" + containerId + "-" + ifName);
  }

  /** Stores an entry, replacing any previous one for the same attachment atomically. */
  public void write(CachedAttachment entry) {
    Path target = resultPath(entry.networkName(), entry.containerId(), entry.ifName());
    Path temp = resultsDir.resolve(TEMP_PREFIX + UUID.randomUUID());
    try {
      createResultsDir();
      Files.createFile(
          temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      AtomicFiles.write(temp, target, CacheFileFormat.encode(entry), durability);
      LOG.debug(
          "event=cache-write network={} container={} ifName={}",
          entry.networkName(),
          entry.containerId(),
          entry.ifName());
    } catch (IOException e) {
      deleteQuietly(temp);
      throw new CniException(
          CniErrorCode.IO_FAILURE, "cannot write cached attachment " + target, e.toString(), e);
    }
  }

  /**
   * The entry of one attachment; empty when there is none. A legacy file (only a result, as libcni
   * wrote before {@code cniCacheV1}) comes back with that result and no other fields.
   */
  public Optional<CachedAttachment> read(String network, String containerId, String ifName) {
    Path file = resultPath(network, containerId, ifName);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new CniException(
          CniErrorCode.IO_FAILURE, "cannot read cached attachment " + file, e.toString(), e);
    }
    String source = file.toString();
    return Optional.of(
        CacheFileFormat.decode(
            CacheFileFormat.parse(bytes, source), source, network, containerId, ifName));
  }

  /**
   * Every {@code cniCacheV1} entry of {@code network}, in file name order. As libcni's {@code
   * GetCachedAttachments}, files that are unreadable, not {@code cniCacheV1}, or lack a network or
   * interface name are skipped.
   */
  public List<CachedAttachment> list(String network) {
    return listAll().stream().filter(e -> e.networkName().equals(network)).toList();
  }

  /**
   * Every {@code cniCacheV1} entry of every network, in file name order (skipping as {@link
   * #list}).
   */
  public List<CachedAttachment> listAll() {
    List<CachedAttachment> entries = new ArrayList<>();
    for (Path file : files()) {
      readListed(file).ifPresent(entries::add);
    }
    return entries;
  }

  /** Removes an attachment's entry; false when there was none. */
  public boolean remove(String network, String containerId, String ifName) {
    Path file = resultPath(network, containerId, ifName);
    try {
      boolean removed = AtomicFiles.delete(file, durability);
      LOG.debug(
          "event=cache-remove network={} container={} ifName={} removed={}",
          network,
          containerId,
          ifName,
          removed);
      return removed;
    } catch (IOException e) {
      throw new CniException(
          CniErrorCode.IO_FAILURE, "cannot remove cached attachment " + file, e.toString(), e);
    }
  }

  private List<Path> files() {
    List<Path> files = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(resultsDir)) {
      for (Path file : dir) {
        if (!file.getFileName().toString().startsWith(TEMP_PREFIX)) {
          files.add(file);
        }
      }
    } catch (NoSuchFileException e) {
      return files;
    } catch (IOException e) {
      throw new CniException(
          CniErrorCode.IO_FAILURE, "cannot list cached attachments in " + resultsDir, e.toString());
    }
    files.sort(null);
    return files;
  }

  private Optional<CachedAttachment> readListed(Path file) {
    try {
      String source = file.toString();
      JsonNode root = CacheFileFormat.parse(Files.readAllBytes(file), source);
      if (!CacheFileFormat.isV1(root)) {
        return Optional.empty();
      }
      CachedAttachment entry = CacheFileFormat.decode(root, source, "", "", "");
      if (entry.networkName().isEmpty() || entry.ifName().isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(entry);
    } catch (IOException | CniException e) {
      LOG.debug("event=cache-skip file={} reason={}", file, e.getMessage());
      return Optional.empty();
    }
  }

  private void createResultsDir() throws IOException {
    if (!Files.isDirectory(resultsDir)) {
      Files.createDirectories(
          resultsDir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
  }

  private static void requireFileNamePart(String what, String value) {
    if (value == null || value.isEmpty() || value.contains("/") || value.equals("..")) {
      throw new CniException(
          CniErrorCode.INVALID_ENVIRONMENT,
          "cache file path needs a " + what + " without '/'",
          "got \"" + value + "\"");
    }
  }

  private static void deleteQuietly(Path temp) {
    try {
      Files.deleteIfExists(temp);
    } catch (IOException ignored) {
      // The temp file is named so that list() skips it; nothing else depends on it.
    }
  }
}
