package dev.cnioperator.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.cni.io.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * What a runtime's verbose CRI {@code Status} says about the CNI configuration it has loaded, read
 * from containerd's keys: {@code cniconfig} lists the networks it loaded (its own loopback first,
 * then the pod network from the first file of its conf dir, with that file's text as {@code
 * Source}), and {@code lastCNILoadStatus} is {@code OK} or why the last reload failed, naming the
 * file. {@code cniconfig} also names the directory containerd loads files from ({@code
 * PluginConfDir}). A runtime without these keys (CRI-O) gives none; the agent then knows only
 * NetworkReady.
 *
 * @param network the pod network's name, null when the runtime lists none
 * @param sha256 the sha256 of the loaded configuration's text, null with {@code network}
 * @param loadError why the last reload failed, null when it succeeded or the runtime does not say
 * @param confDir the directory the runtime loads CNI configuration from, null when it does not say
 */
public record LoadedCniConfig(String network, String sha256, String loadError, String confDir) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LOOPBACK_IFNAME = "lo";

  /** Reads containerd's keys; empty when the runtime reports no {@code cniconfig}. */
  public static Optional<LoadedCniConfig> from(Map<String, String> info) {
    String config = info.get("cniconfig");
    if (config == null) {
      return Optional.empty();
    }
    String name = null;
    String sha = null;
    String confDir;
    try {
      JsonNode tree = JSON.readTree(config);
      confDir = tree.path("PluginConfDir").asText(null);
      for (JsonNode n : tree.path("Networks")) {
        if (LOOPBACK_IFNAME.equals(n.path("IFName").asText())) {
          continue;
        }
        name = n.path("Config").path("Name").asText(null);
        String source = n.path("Config").path("Source").asText(null);
        sha = source == null ? null : Sha256.hex(source.getBytes(StandardCharsets.UTF_8));
        break;
      }
    } catch (java.io.IOException e) {
      return Optional.empty();
    }
    return Optional.of(
        new LoadedCniConfig(name, sha, loadError(info.get("lastCNILoadStatus")), confDir));
  }

  /** The status is JSON text, a quoted string; "OK" means the last reload worked. */
  private static String loadError(String status) {
    if (status == null) {
      return null;
    }
    String text;
    try {
      JsonNode n = JSON.readTree(status);
      text = n.isTextual() ? n.textValue() : status;
    } catch (java.io.IOException e) {
      text = status;
    }
    return text.isBlank() || "OK".equals(text) ? null : text;
  }
}
