package dev.cnioperator.agent.host;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What this agent wrote on the node: conflists by file name and plugin binaries by name. Anything
 * not listed here is not the agent's, and the agent never modifies or deletes it.
 */
public record Manifest(
    @JsonProperty("conflists") Map<String, ManagedFile> conflists,
    @JsonProperty("binaries") Map<String, ManagedFile> binaries) {

  public Manifest {
    conflists =
        Collections.unmodifiableMap(new TreeMap<>(conflists == null ? Map.of() : conflists));
    binaries = Collections.unmodifiableMap(new TreeMap<>(binaries == null ? Map.of() : binaries));
  }

  public static Manifest empty() {
    return new Manifest(Map.of(), Map.of());
  }

  public Optional<ManagedFile> conflist(String fileName) {
    return Optional.ofNullable(conflists.get(fileName));
  }

  public Optional<ManagedFile> binary(String name) {
    return Optional.ofNullable(binaries.get(name));
  }

  /** This manifest with {@code fileName} recorded at {@code sha256}. */
  public Manifest withConflist(String fileName, String sha256, String network) {
    return new Manifest(put(conflists, fileName, sha256, network), binaries);
  }

  public Manifest withoutConflist(String fileName) {
    Map<String, ManagedFile> m = new TreeMap<>(conflists);
    m.remove(fileName);
    return new Manifest(m, binaries);
  }

  /** This manifest with binary {@code name} recorded at {@code sha256}. */
  public Manifest withBinary(String name, String sha256, String source) {
    return new Manifest(conflists, put(binaries, name, sha256, source));
  }

  private static Map<String, ManagedFile> put(
      Map<String, ManagedFile> map, String key, String sha256, String source) {
    Map<String, ManagedFile> m = new TreeMap<>(map);
    ManagedFile old = m.get(key);
    m.put(key, old == null ? new ManagedFile(sha256, null, source) : old.next(sha256, source));
    return m;
  }
}
