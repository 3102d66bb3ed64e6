package dev.cnioperator.agent.host;

import java.nio.file.Path;

/** Reads and atomically writes the {@link Manifest} in the agent's state directory. */
public final class ManifestStore {
  private final StateFile<Manifest> file;

  public ManifestStore(HostFiles files, Path file) {
    this.file = new StateFile<>(files, file, Manifest.class, Manifest.empty(), "a valid manifest");
  }

  /** The manifest on disk; empty on a node the agent never wrote to. */
  public Manifest load() {
    return file.load();
  }

  /** Replaces the manifest on disk, atomically. */
  public void save(Manifest manifest) {
    file.save(manifest);
  }

  static byte[] toBytes(Manifest manifest) {
    return StateFile.toBytes(manifest);
  }

  public Path file() {
    return file.file();
  }
}
