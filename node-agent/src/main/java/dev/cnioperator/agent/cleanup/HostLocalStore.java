package dev.cnioperator.agent.cleanup;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Reads host-local's reservations of a network: one file per address under {@code
 * <dataDir>/<network>/}, holding the container id and, on its second line, the interface name.
 */
public final class HostLocalStore {
  private static final Pattern ADDRESS = Pattern.compile("^[0-9a-fA-F.:]+$");

  private final Path defaultDataDir;

  /**
   * @param defaultDataDir host-local's dataDir when the config names none ({@code
   *     /var/lib/cni/networks})
   */
  public HostLocalStore(Path defaultDataDir) {
    this.defaultDataDir = defaultDataDir;
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

  /** The network's reservations; empty when it has none or does not use host-local. */
  public List<Reservation> reservations(NetworkConfigList list) throws IOException {
    List<Reservation> out = new ArrayList<>();
    Optional<Path> dir = directory(list);
    if (dir.isEmpty() || !Files.isDirectory(dir.get())) {
      return out;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir.get())) {
      for (Path f : files) {
        String ip = f.getFileName().toString();
        if (!ADDRESS.matcher(ip).matches() || !Files.isRegularFile(f)) {
          continue; // lock, last_reserved_ip.N
        }
        String[] lines = Files.readString(f, StandardCharsets.UTF_8).split("\\r?\\n");
        String containerId = lines[0].trim();
        String ifName = lines.length > 1 && !lines[1].isBlank() ? lines[1].trim() : "eth0";
        if (!containerId.isEmpty()) {
          out.add(new Reservation(ip, containerId, ifName));
        }
      }
    }
    out.sort(java.util.Comparator.comparing(Reservation::ip));
    return out;
  }
}
