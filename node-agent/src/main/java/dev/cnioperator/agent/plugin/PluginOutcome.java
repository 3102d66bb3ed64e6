package dev.cnioperator.agent.plugin;

import dev.cnioperator.agent.plugin.BinaryAction.Owner;
import java.util.List;

/**
 * What a pass found or did for one plugin binary; becomes its entry in the CniNode status.
 *
 * @param sha256 of the binary on disk, null when absent
 * @param owner who put it there, null when absent
 * @param supportedVersions what it answered to VERSION (empty when it could not be asked)
 * @param error why it is unusable, null when it is usable
 * @param restored the pass installed it again after someone changed or removed the agent's binary
 */
public record PluginOutcome(
    String name,
    String sha256,
    Owner owner,
    List<String> supportedVersions,
    String error,
    boolean restored) {

  public PluginOutcome(
      String name, String sha256, Owner owner, List<String> supportedVersions, String error) {
    this(name, sha256, owner, supportedVersions, error, false);
  }

  public boolean usable() {
    return error == null && sha256 != null;
  }

  public PluginOutcome withVersions(List<String> versions) {
    return new PluginOutcome(name, sha256, owner, List.copyOf(versions), error, restored);
  }

  public PluginOutcome withError(String message) {
    return new PluginOutcome(name, sha256, owner, supportedVersions, message, restored);
  }
}
