package dev.cnioperator.agent.plugin;

import java.util.List;

/** Asks a plugin in the bin dir which CNI versions it speaks (the VERSION verb). */
@FunctionalInterface
public interface VersionProbe {

  /**
   * @throws RuntimeException with the plugin's error when it cannot answer
   */
  List<String> supportedVersions(String pluginName);
}
