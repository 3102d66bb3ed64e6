package dev.cnioperator.agent.host;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One JSON record in the agent's state directory, read whole and replaced atomically; a failure is
 * a {@link ManifestException} naming the file.
 */
final class StateFile<T> {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final HostFiles files;
  private final Path file;
  private final Class<T> type;
  private final T none;
  private final String what;

  /**
   * @param none the record on a node where the file does not exist
   * @param what what the file is, for the error on one that does not parse: "a manifest"
   */
  StateFile(HostFiles files, Path file, Class<T> type, T none, String what) {
    this.files = files;
    this.file = file;
    this.type = type;
    this.none = none;
    this.what = what;
  }

  T load() {
    Optional<byte[]> bytes;
    try {
      bytes = files.read(file);
    } catch (IOException e) {
      throw new ManifestException(file, "cannot be read", e);
    }
    if (bytes.isEmpty()) {
      return none;
    }
    try {
      return JSON.readValue(bytes.get(), type);
    } catch (IOException e) {
      throw new ManifestException(file, "is not " + what + " (fix or remove it by hand)", e);
    }
  }

  void save(T value) {
    try {
      files.createDirectories(file.getParent());
      files.writeAtomically(file, toBytes(value), false);
    } catch (IOException e) {
      throw new ManifestException(file, "cannot be written", e);
    }
  }

  void remove() {
    try {
      files.delete(file);
    } catch (IOException e) {
      throw new ManifestException(file, "cannot be removed", e);
    }
  }

  static byte[] toBytes(Object value) {
    try {
      return JSON.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a state record always serialises", e);
    }
  }

  Path file() {
    return file;
  }
}
