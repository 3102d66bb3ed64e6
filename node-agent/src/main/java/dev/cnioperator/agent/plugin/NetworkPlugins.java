package dev.cnioperator.agent.plugin;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The plugins one network needs and its CNI version; decides whether the node can serve it.
 *
 * @param types every {@code type} and {@code ipam.type} in the conflist
 */
public record NetworkPlugins(String network, String cniVersion, List<String> types) {

  /**
   * Why this network cannot run on this node with {@code plugins}, or empty when every plugin it
   * needs is present and supports its {@code cniVersion}.
   */
  public Optional<String> problem(Map<String, PluginOutcome> plugins) {
    for (String type : Set.copyOf(types).stream().sorted().toList()) {
      PluginOutcome p = plugins.get(type);
      if (p == null || !p.usable()) {
        String why = p == null || p.error() == null ? "plugin " + type + " is missing" : p.error();
        return Optional.of(why);
      }
      if (!p.supportedVersions().contains(cniVersion)) {
        return Optional.of(
            "plugin "
                + type
                + " does not support cniVersion "
                + cniVersion
                + " (it supports "
                + String.join(", ", p.supportedVersions())
                + ")");
      }
    }
    return Optional.empty();
  }
}
