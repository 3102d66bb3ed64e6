package dev.cnioperator.cni.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds network configurations in a directory such as {@code /etc/cni/net.d} the way libcni's
 * {@code LoadConfList} does, so this runtime and containerd or CRI-O pick the same file for a
 * network name: {@code *.conflist} files in lexical order first, then legacy single-plugin {@code
 * *.conf} and {@code *.json} files in lexical order; the first whose {@code name} matches wins.
 *
 * <p>As in libcni, a file that is not JSON stops the search with an error naming it, even when it
 * belongs to another network. Unlike libcni, the full validation ({@link ConfigValidator}) applies
 * only to the file that matches: a strict rule broken by some other network's file does not stop
 * this one from loading. (libcni 1.3's plugin files in a {@code <dir>/<network>/} sub-directory are
 * not read here; {@link LibcniNetworks} reads them.)
 */
public final class ConfigDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(ConfigDirectory.class);

  private ConfigDirectory() {}

  /**
   * The configuration files of {@code dir} in search order: {@code .conflist} files, then {@code
   * .conf} and {@code .json} files, each group in lexical order. Empty when {@code dir} does not
   * exist.
   */
  public static List<Path> list(Path dir) {
    List<String> names = files(dir).stream().map(f -> f.getFileName().toString()).toList();
    return LibcniNetworks.searchOrder(names).stream().map(dir::resolve).toList();
  }

  /**
   * The configuration list of network {@code networkName}.
   *
   * @throws NetworkNotFoundException when no file has that name
   * @throws CniConfigException when a file is not JSON, or the matching file is invalid; the
   *     message names the file
   */
  public static NetworkConfigList load(Path dir, String networkName) {
    return load(dir, networkName, ValidationLevel.FULL);
  }

  /** As {@link #load(Path, String)}, refusing only what {@code level} refuses. */
  public static NetworkConfigList load(Path dir, String networkName, ValidationLevel level) {
    return find(dir, networkName, level)
        .orElseThrow(() -> new NetworkNotFoundException(dir, networkName));
  }

  /** As {@link #load(Path, String)}, but empty when no file has that network name. */
  public static Optional<NetworkConfigList> find(Path dir, String networkName) {
    return find(dir, networkName, ValidationLevel.FULL);
  }

  /** As {@link #load(Path, String, ValidationLevel)}, but empty when no file has that name. */
  public static Optional<NetworkConfigList> find(
      Path dir, String networkName, ValidationLevel level) {
    for (Path file : list(dir)) {
      byte[] content = read(file);
      JsonNode json = ConfigJson.read(content, file.toString());
      if (json.isObject() && networkName.equals(json.path("name").textValue())) {
        LOG.debug(
            "event=network-config-found network={} file={} level={}", networkName, file, level);
        return Optional.of(parse(file, content, level));
      }
    }
    LOG.debug("event=network-config-not-found network={} dir={}", networkName, dir);
    return Optional.empty();
  }

  /** Every configuration of {@code dir}, in search order; any invalid file is an error. */
  public static List<NetworkConfigList> loadAll(Path dir) {
    return loadAll(dir, ValidationLevel.FULL);
  }

  /** As {@link #loadAll(Path)}, refusing only what {@code level} refuses. */
  public static List<NetworkConfigList> loadAll(Path dir, ValidationLevel level) {
    List<NetworkConfigList> lists = new ArrayList<>();
    for (Path file : list(dir)) {
      lists.add(parse(file, read(file), level));
    }
    return lists;
  }

  private static NetworkConfigList parse(Path file, byte[] content, ValidationLevel level) {
    return isConfList(file)
        ? NetworkConfigList.parse(content, file.toString(), level)
        : NetworkConfigList.parseLegacyConf(content, file.toString(), level);
  }

  private static List<Path> files(Path dir) {
    // Like Go's os.ReadDir + DirEntry.IsDir: a symlink counts as a file, whatever it points at.
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).toList();
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new CniException(
          CniErrorCode.IO_FAILURE, "cannot list network configurations in " + dir, e.toString(), e);
    }
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new CniException(
          CniErrorCode.IO_FAILURE, "cannot read network configuration " + file, e.toString(), e);
    }
  }

  /** Go's filepath.Ext: the suffix from the last dot of the file name. */
  private static String extension(Path file) {
    String name = file.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return dot < 0 ? "" : name.substring(dot);
  }

  private static boolean isConfList(Path file) {
    return extension(file).equals(".conflist");
  }
}
