package dev.cnioperator.agent.node;

import dev.cnioperator.agent.conflist.RuntimeDropIns;
import dev.cnioperator.agent.host.DropIns;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import dev.cnioperator.api.v1alpha1.UnparsableFile;
import dev.cnioperator.cni.config.LibcniNetworks;
import dev.cnioperator.cni.io.Sha256;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Predicate;

/**
 * What one pass reads of the node before it changes anything, read by {@link NodeObserver} alone:
 * the plans are made from it, without a disk.
 *
 * @param manifest what the agent wrote before
 * @param dropIns the drop-in files the agent wrote before
 * @param bundledPlugins the sha256 of each plugin binary the agent's image carries, by name
 * @param installedPlugins the sha256 of each plugin binary in the node's bin dir, by name
 * @param files the regular files of each directory the agent writes conflists to, by name, read
 *     whole (a few kilobytes each): what is there now, renamed copies of its files included
 * @param runtime the runtime's directory as libcni reads it: its configuration files and the
 *     drop-ins of each list's drop-in directory
 * @param runtimeDropIns whether the runtime loads drop-ins; not asked (unknown) when no network
 *     asks for them
 */
public record NodeObservation(
    Manifest manifest,
    DropIns dropIns,
    Map<String, String> bundledPlugins,
    Map<String, String> installedPlugins,
    Map<ConfigDirectory, SortedMap<String, byte[]>> files,
    LibcniNetworks.Directory runtime,
    RuntimeDropIns runtimeDropIns) {

  /** The files of {@code directory}, by name. */
  public SortedMap<String, byte[]> in(ConfigDirectory directory) {
    return files.get(directory);
  }

  /**
   * The name of a file of {@code directory} whose sha256 is {@code sha256}, other than {@code not}.
   */
  public Optional<String> withSha256(
      ConfigDirectory directory, Predicate<String> sha256, String not) {
    return in(directory).entrySet().stream()
        .filter(e -> !e.getKey().equals(not) && sha256.test(Sha256.hex(e.getValue())))
        .map(Map.Entry::getKey)
        .findFirst();
  }

  /**
   * What the pass reads after its writes, for its report.
   *
   * @param manifest the manifest as the writes left it
   * @param runtimeFiles the configuration files of the runtime's directory, by name
   * @param binDir the names in the node's bin dir
   * @param unparsableMultusFiles the files of Multus's directory that are not the agent's and that
   *     Multus cannot parse, in the order Multus reads them
   */
  public record After(
      Manifest manifest,
      SortedMap<String, byte[]> runtimeFiles,
      Set<String> binDir,
      List<UnparsableFile> unparsableMultusFiles) {}
}
