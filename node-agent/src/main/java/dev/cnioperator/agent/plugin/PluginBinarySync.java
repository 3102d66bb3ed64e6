package dev.cnioperator.agent.plugin;

import dev.cnioperator.agent.host.ManagedFile;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.WriteReason;
import dev.cnioperator.agent.plugin.BinaryAction.Install;
import dev.cnioperator.agent.plugin.BinaryAction.Keep;
import dev.cnioperator.agent.plugin.BinaryAction.Owner;
import dev.cnioperator.agent.plugin.BinaryAction.Unavailable;
import dev.cnioperator.cni.io.Sha256;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides, per plugin binary, whether to install, keep or report it missing: what the networks need
 * + what the spec requests + what is bundled + the manifest + the bin dir in, actions out. Pure. A
 * binary the agent did not install is never replaced; binaries are never deleted, because conflists
 * the agent does not manage may use them.
 */
public final class PluginBinarySync {

  /**
   * @param needed every {@code type} and {@code ipam.type} of the desired networks
   * @param requested the spec's plugins, by name
   * @param bundled sha256 of each binary in the bundled plugin dir, by name
   * @param manifest what the agent owns
   * @param onDisk sha256 of each file in the bin dir, by name
   */
  public List<BinaryAction> plan(
      Set<String> needed,
      Map<String, PluginRequest> requested,
      Map<String, String> bundled,
      Manifest manifest,
      Map<String, String> onDisk) {
    Set<String> names = new TreeSet<>(needed);
    names.addAll(requested.keySet());
    List<BinaryAction> actions = new ArrayList<>();
    for (String name : names) {
      PluginRequest request = requested.getOrDefault(name, PluginRequest.bundled(name));
      actions.add(
          decide(name, request, bundled.get(name), manifest.binary(name), onDisk.get(name)));
    }
    return actions;
  }

  private static BinaryAction decide(
      String name,
      PluginRequest request,
      String bundledSha,
      Optional<ManagedFile> owned,
      String diskSha) {
    if (request.isDownload() && !Sha256.isWellFormed(request.sha256())) {
      return new Unavailable(
          name,
          "plugin "
              + name
              + " from "
              + request.source()
              + ": sha256 is mandatory with a url and must be 64 hex digits");
    }
    String wantSha = request.isDownload() ? request.sha256().toLowerCase() : bundledSha;
    String url = request.isDownload() ? request.url() : null;
    if (diskSha != null && owned.isEmpty()) {
      return new Keep(name, Owner.external);
    }
    if (diskSha == null) {
      if (wantSha == null) {
        return new Unavailable(
            name,
            "plugin " + name + " is not in the bin dir, not bundled, and no CniPlugin provides it");
      }
      return new Install(
          name, url, wantSha, owned.isPresent() ? WriteReason.RESTORE_REMOVED : WriteReason.CREATE);
    }
    if (wantSha == null || diskSha.equals(wantSha)) {
      return new Keep(name, Owner.agent);
    }
    WriteReason reason =
        owned.get().isOwnVersion(diskSha) ? WriteReason.UPDATE : WriteReason.RESTORE_CHANGED;
    return new Install(name, url, wantSha, reason);
  }
}
