package dev.cnioperator.agent.host;

import java.nio.file.Path;

/**
 * The manifest cannot be read or written. The agent then does not know what it owns, so it changes
 * nothing on disk until the file is repaired.
 */
public final class ManifestException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ManifestException(Path file, String what, Throwable cause) {
    super(
        "manifest " + file + ": " + what + (cause == null ? "" : ": " + cause.getMessage()), cause);
  }
}
