package dev.cnioperator.agent.host;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/** Reads and atomically writes the {@link Manifest} in the agent's state directory. */
public final class ManifestStore {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final HostFiles files;
  private final Path file;

  public ManifestStore(HostFiles files, Path file) {
    this.files = files;
    this.file = file;
  }

  /** The manifest on disk; empty on a node the agent never wrote to. */
  public Manifest load() {
    Optional<byte[]> bytes;
    try {
      bytes = files.read(file);
    } catch (IOException e) {
      throw new ManifestException(file, "cannot be read", e);
    }
    if (bytes.isEmpty()) {
      return Manifest.empty();
    }
    try {
      return JSON.readValue(bytes.get(), Manifest.class);
    } catch (IOException e) {
      throw new ManifestException(file, "is not a valid manifest (fix or remove it by hand)", e);
    }
  }

  /** Replaces the manifest on disk, atomically. */
  public void save(Manifest manifest) {
    try {
      files.createDirectories(file.getParent());
      files.writeAtomically(file, toBytes(manifest), false);
    } catch (IOException e) {
      throw new ManifestException(file, "cannot be written", e);
    }
  }

  static byte[] toBytes(Manifest manifest) {
    try {
      return JSON.writeValueAsBytes(manifest);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a manifest always serialises", e);
    }
  }

  public Path file() {
    return file;
  }
}
