package dev.cnioperator.agent.host;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.cnioperator.api.v1alpha1.ConfigDirectory;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What this agent wrote on the node: conflists by file name, one map per configuration directory,
 * plugin binaries by name, and the entries it appended to other products' files by network.
 * Anything not listed here is not the agent's, and the agent never modifies or deletes it.
 */
public record Manifest(
    @JsonProperty("conflists") Map<String, ManagedFile> conflists,
    @JsonProperty("binaries") Map<String, ManagedFile> binaries,
    @JsonProperty("multusConflists") Map<String, ManagedFile> multusConflists,
    @JsonProperty("chains") Map<String, AppendedChain> chains) {

  @JsonCreator
  public Manifest {
    conflists = sorted(conflists);
    binaries = sorted(binaries);
    multusConflists = sorted(multusConflists);
    chains = Collections.unmodifiableMap(new TreeMap<>(chains == null ? Map.of() : chains));
  }

  public Manifest(
      Map<String, ManagedFile> conflists,
      Map<String, ManagedFile> binaries,
      Map<String, ManagedFile> multusConflists) {
    this(conflists, binaries, multusConflists, Map.of());
  }

  public static Manifest empty() {
    return new Manifest(Map.of(), Map.of(), Map.of());
  }

  /** The entries network {@code network} appended to another product's file, if any. */
  public Optional<AppendedChain> chain(String network) {
    return Optional.ofNullable(chains.get(network));
  }

  /** This manifest with {@code chain} recorded for {@code network}. */
  public Manifest withChain(String network, AppendedChain chain) {
    Map<String, AppendedChain> m = new TreeMap<>(chains);
    m.put(network, chain);
    return new Manifest(conflists, binaries, multusConflists, m);
  }

  public Manifest withoutChain(String network) {
    Map<String, AppendedChain> m = new TreeMap<>(chains);
    m.remove(network);
    return new Manifest(conflists, binaries, multusConflists, m);
  }

  /** The conflists the agent wrote into {@code directory}, by file name. */
  public Map<String, ManagedFile> conflists(ConfigDirectory directory) {
    return directory == ConfigDirectory.Multus ? multusConflists : conflists;
  }

  public Optional<ManagedFile> conflist(ConfigDirectory directory, String fileName) {
    return Optional.ofNullable(conflists(directory).get(fileName));
  }

  public Optional<ManagedFile> binary(String name) {
    return Optional.ofNullable(binaries.get(name));
  }

  /** This manifest with {@code fileName} of {@code directory} recorded at {@code sha256}. */
  public Manifest withConflist(
      ConfigDirectory directory, String fileName, String sha256, String network) {
    return withConflist(directory, fileName, sha256, network, null);
  }

  /**
   * This manifest with {@code fileName} of {@code directory} recorded at {@code sha256}, the file
   * holding {@code content} of the agent's own (see {@link ManagedFile#content()}).
   */
  public Manifest withConflist(
      ConfigDirectory directory, String fileName, String sha256, String network, String content) {
    return withConflists(directory, put(conflists(directory), fileName, sha256, network, content));
  }

  public Manifest withoutConflist(ConfigDirectory directory, String fileName) {
    Map<String, ManagedFile> m = new TreeMap<>(conflists(directory));
    m.remove(fileName);
    return withConflists(directory, m);
  }

  /** This manifest with binary {@code name} recorded at {@code sha256}. */
  public Manifest withBinary(String name, String sha256, String source) {
    return new Manifest(
        conflists, put(binaries, name, sha256, source, null), multusConflists, chains);
  }

  private Manifest withConflists(ConfigDirectory directory, Map<String, ManagedFile> files) {
    return directory == ConfigDirectory.Multus
        ? new Manifest(conflists, binaries, files, chains)
        : new Manifest(files, binaries, multusConflists, chains);
  }

  private static Map<String, ManagedFile> sorted(Map<String, ManagedFile> files) {
    return Collections.unmodifiableMap(new TreeMap<>(files == null ? Map.of() : files));
  }

  private static Map<String, ManagedFile> put(
      Map<String, ManagedFile> map, String key, String sha256, String source, String content) {
    Map<String, ManagedFile> m = new TreeMap<>(map);
    ManagedFile old = m.get(key);
    m.put(
        key,
        old == null
            ? new ManagedFile(sha256, null, source, content)
            : old.next(sha256, source, content));
    return m;
  }
}
