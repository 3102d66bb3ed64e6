package dev.cnioperator.cni.exec;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Finds a plugin binary by its {@code type} on {@code CNI_PATH}, first directory first, as libcni's
 * {@code invoke.FindInPath} does; a type that could escape the directories is refused.
 */
public final class PluginLocator {
  private final List<Path> cniPath;

  public PluginLocator(List<Path> cniPath) {
    this.cniPath = List.copyOf(cniPath);
  }

  /** Splits a {@code CNI_PATH} value on ':' (empty entries are skipped). */
  public static List<Path> parseCniPath(String value) {
    List<Path> dirs = new ArrayList<>();
    if (value != null) {
      for (String dir : value.split(File.pathSeparator)) {
        if (!dir.isEmpty()) {
          dirs.add(Path.of(dir));
        }
      }
    }
    return dirs;
  }

  public List<Path> cniPath() {
    return cniPath;
  }

  /** The {@code CNI_PATH} value handed to plugins, so they find their delegates (IPAM). */
  public String cniPathValue() {
    return cniPath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
  }

  /**
   * @throws CniException {@code INVALID_NETWORK_CONFIG} for an empty or unsafe type (SPEC-1.1.0.md
   *     Section 1: no path separators), {@code PLUGIN_NOT_FOUND} naming every directory searched
   */
  public Path find(String type) {
    if (type == null || type.isEmpty()) {
      throw new CniException(CniErrorCode.INVALID_NETWORK_CONFIG, "plugin type is empty", "");
    }
    if (type.contains("/")
        || type.contains("\\")
        || type.contains("..")
        || type.chars().anyMatch(Character::isISOControl)) {
      throw new CniException(
          CniErrorCode.INVALID_NETWORK_CONFIG,
          "plugin type \"" + type.replaceAll("\\p{Cntrl}", "?") + "\" is not a plain file name",
          "a type must not contain '/', '\\', '..' or control characters (NUL among them)");
    }
    for (Path dir : cniPath) {
      Path candidate = dir.resolve(type);
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new CniException(
        CniErrorCode.PLUGIN_NOT_FOUND,
        "plugin \"" + type + "\" not found",
        "searched CNI_PATH=" + (cniPath.isEmpty() ? "<empty>" : cniPathValue()));
  }
}
