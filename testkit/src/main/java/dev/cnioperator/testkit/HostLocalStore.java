package dev.cnioperator.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What the host-local IPAM plugin has reserved: it keeps one file per reserved address, named by
 * the address, in {@code <dataDir>/<network name>/}, next to its own bookkeeping files.
 */
public final class HostLocalStore {
  private HostLocalStore() {}

  /** The reserved IPv4 addresses of {@code networkDir}, empty when it does not exist. */
  public static List<String> reservedIps(Path networkDir) {
    if (!Files.isDirectory(networkDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(networkDir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.matches("\\d+\\.\\d+\\.\\d+\\.\\d+"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The reserved IPv4 addresses of {@code networkDir} with the container id each is reserved for
   * (the file's first line), in address order; empty when the directory does not exist.
   */
  public static Map<String, String> reservedBy(Path networkDir) {
    Map<String, String> owners = new TreeMap<>();
    for (String ip : reservedIps(networkDir)) {
      try {
        owners.put(
            ip, Files.readString(networkDir.resolve(ip)).lines().findFirst().orElse("").strip());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return owners;
  }
}
