package dev.cnioperator.agent.conflist;

import dev.cnioperator.agent.host.HostFiles;
import dev.cnioperator.agent.host.Manifest;
import dev.cnioperator.agent.host.ManifestException;
import dev.cnioperator.agent.host.ManifestStore;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one write protocol of the agent's configuration files, whatever their placement: the manifest
 * that records a file is saved before the file is renamed into place, so after a kill at any moment
 * the manifest names every file the agent may have written, and the file is either as it was or
 * complete.
 */
final class RecordedWrites {
  private static final Logger LOG = LoggerFactory.getLogger(RecordedWrites.class);

  private final HostFiles files;
  private final ManifestStore store;

  RecordedWrites(HostFiles files, ManifestStore store) {
    this.files = files;
    this.store = store;
  }

  /**
   * Saves {@code next}, which records {@code file}, then writes {@code content} there atomically.
   */
  void write(Manifest next, Path file, byte[] content) throws IOException {
    store.save(next);
    files.writeAtomically(file, content, false);
  }

  /** {@code next} once saved; {@code before} when the manifest cannot be written now (logged). */
  Manifest saved(Manifest before, Manifest next) {
    try {
      store.save(next);
      return next;
    } catch (ManifestException e) {
      LOG.warn("event=manifest-write-failed error=\"{}\"", e.getMessage());
      return before;
    }
  }
}
