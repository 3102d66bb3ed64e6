package dev.cnioperator.cni.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Writes small shell-script plugins into a test's directory; running them is a real process. */
public final class FakePlugins {
  private final Path dir;

  public FakePlugins(Path dir) {
    this.dir = dir;
  }

  public Path dir() {
    return dir;
  }

  /** A plugin named {@code name} whose body is {@code script} (run by /bin/sh). */
  public Path write(String name, String script) {
    Path plugin = dir.resolve(name);
    try {
      Files.writeString(plugin, "#!/bin/sh\n" + script + "\n", StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return plugin;
  }
}
