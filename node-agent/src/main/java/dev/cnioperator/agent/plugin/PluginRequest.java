package dev.cnioperator.agent.plugin;

/**
 * A binary the CniNode spec asks for by name.
 *
 * @param name the binary's name in the bin dir (a network's {@code type} or {@code ipam.type})
 * @param source "bundled", or the name of the CniPlugin that provides it
 * @param url where to download it from; null for a bundled plugin
 * @param sha256 the sha256 the download must have; mandatory with a URL
 */
public record PluginRequest(String name, String source, String url, String sha256) {

  public static PluginRequest bundled(String name) {
    return new PluginRequest(name, "bundled", null, null);
  }

  public boolean isDownload() {
    return url != null && !url.isBlank();
  }
}
