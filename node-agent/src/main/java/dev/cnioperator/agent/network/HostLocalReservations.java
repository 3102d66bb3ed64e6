package dev.cnioperator.agent.network;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads host-local's reservations of a network where host-local keeps them: one file per address
 * under {@code <dataDir>/<network>/}, holding the container id and, on its second line, the
 * interface name, where dataDir is the one of the configuration the attachment was added with.
 */
public final class HostLocalReservations {
  /**
   * host-local's dataDir when the configuration names none ({@code defaultDataDir} in its {@code
   * backend/disk}): compiled into the plugin, so it does not follow the runtime's cache dir.
   */
  public static final Path DEFAULT_DATA_DIR = Path.of("/var/lib/cni/networks");

  private static final Pattern ADDRESS = Pattern.compile("^[0-9a-fA-F.:]+$");

  private final Path defaultDataDir;
  private final Path hostDir;

  /**
   * @param defaultDataDir host-local's dataDir when the config names none ({@link
   *     #DEFAULT_DATA_DIR}; a test's own elsewhere)
   * @param hostDir a directory the agent is known to see as the host does (its cache dir, which the
   *     chart mounts at the same path): a dataDir missing inside it is missing on the host
   */
  public HostLocalReservations(Path defaultDataDir, Path hostDir) {
    this.defaultDataDir = defaultDataDir;
    this.hostDir = hostDir;
  }

  /**
   * What a read of a network's stores found.
   *
   * @param reservations the reservations of every store that could be read
   * @param configs each store read, with the configuration to DEL its reservations through: the
   *     current one for its own store, the first cached one naming it for another
   * @param unreadable each store that could not be read, with why: its reservations are unknown,
   *     not absent
   */
  public record Reading(
      List<Reservation> reservations,
      Map<Path, NetworkConfigList> configs,
      Map<Path, String> unreadable) {

    public boolean complete() {
      return unreadable.isEmpty();
    }

    /** A line for the status naming each store that could not be read; empty when none. */
    public String message() {
      List<String> parts = new ArrayList<>();
      unreadable.forEach(
          (dir, why) ->
              parts.add(
                  "host-local store "
                      + dir
                      + " cannot be read ("
                      + why
                      + "): nothing stored there is released"));
      return String.join("; ", parts);
    }
  }

  /** The directory of the network's reservations, when one of its plugins uses host-local. */
  public Optional<Path> directory(NetworkConfigList list) {
    for (PluginConfig p : list.plugins()) {
      if (p.ipamType().filter("host-local"::equals).isPresent()) {
        JsonNode dataDir = p.raw().path("ipam").path("dataDir");
        Path base = dataDir.isTextual() ? Path.of(dataDir.textValue()) : defaultDataDir;
        return Optional.of(base.resolve(list.name()));
      }
    }
    return Optional.empty();
  }

  /**
   * The network's reservations in every store its revisions point to: the current configuration's
   * and those of the configurations its cached attachments were added with, since a dataDir changed
   * between revisions leaves the older attachments' reservations in the old store.
   */
  public Reading read(ManagedNetwork network, List<CachedAttachment> entries) {
    List<NetworkConfigList> configs = new ArrayList<>();
    configs.add(network.list());
    Set<String> seen = new HashSet<>();
    for (CachedAttachment e : entries) {
      // Attachments of one revision share its bytes: each distinct config is parsed once.
      if (seen.add(new String(e.config(), StandardCharsets.UTF_8))) {
        CachedConfig.of(network, e).ifPresent(configs::add);
      }
    }
    return read(configs);
  }

  /** The reservations of the stores {@code configs} point to, the first config naming each. */
  Reading read(List<NetworkConfigList> configs) {
    Map<Path, NetworkConfigList> stores = new LinkedHashMap<>();
    for (NetworkConfigList list : configs) {
      directory(list).ifPresent(dir -> stores.putIfAbsent(dir, list));
    }
    List<Reservation> reservations = new ArrayList<>();
    Map<Path, String> unreadable = new LinkedHashMap<>();
    for (Path dir : stores.keySet()) {
      readInto(dir, reservations).ifPresent(why -> unreadable.put(dir, why));
    }
    stores.keySet().removeAll(unreadable.keySet());
    reservations.sort(Comparator.comparing(Reservation::store).thenComparing(Reservation::ip));
    return new Reading(reservations, stores, unreadable);
  }

  /**
   * Adds the reservations in {@code dir} to {@code out}, all or none; says why when it cannot be
   * read.
   */
  private Optional<String> readInto(Path dir, List<Reservation> out) {
    List<Reservation> read = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        String ip = f.getFileName().toString();
        if (!ADDRESS.matcher(ip).matches() || !Files.isRegularFile(f)) {
          continue; // lock, last_reserved_ip.N
        }
        String[] lines;
        try {
          lines = Files.readString(f, StandardCharsets.UTF_8).split("\\r?\\n");
        } catch (NoSuchFileException released) {
          continue; // released by a DEL since the listing
        }
        String containerId = lines[0].trim();
        String ifName = lines.length > 1 && !lines[1].isBlank() ? lines[1].trim() : "eth0";
        if (!containerId.isEmpty()) {
          read.add(new Reservation(dir, ip, containerId, ifName));
        }
      }
      out.addAll(read);
      return Optional.empty();
    } catch (NoSuchFileException e) {
      return missing(dir.getParent());
    } catch (IOException | DirectoryIteratorException e) {
      Throwable cause = e instanceof DirectoryIteratorException d ? d.getCause() : e;
      if (cause instanceof AccessDeniedException) {
        return Optional.of("permission denied");
      }
      if (cause instanceof NotDirectoryException) {
        return Optional.of("not a directory");
      }
      return Optional.of(
          cause instanceof FileSystemException f && f.getReason() != null
              ? f.getReason()
              : cause.toString());
    }
  }

  /**
   * Why a store whose network directory is missing cannot be read, or empty when nothing was
   * reserved there: host-local makes {@code <dataDir>/<network>} on its first ADD, so under a
   * dataDir that exists nothing ever was. A missing dataDir is certain only inside the directory
   * the agent shares with the host; elsewhere it may exist on the host and not be mounted here.
   */
  private Optional<String> missing(Path dataDir) {
    if (Files.isDirectory(dataDir) || (dataDir.startsWith(hostDir) && Files.isDirectory(hostDir))) {
      return Optional.empty();
    }
    return Optional.of(
        "dataDir "
            + dataDir
            + " does not exist here: never used on this node, or not mounted into the agent's"
            + " container");
  }
}
