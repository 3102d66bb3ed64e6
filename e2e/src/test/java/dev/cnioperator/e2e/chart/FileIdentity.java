package dev.cnioperator.e2e.chart;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A file's inode, modification time and bytes: a rewrite, even to the same bytes, changes it. */
record FileIdentity(Object inode, long modifiedNanos, String content) {
  static FileIdentity of(Path file) {
    try {
      return new FileIdentity(
          Files.getAttribute(file, "unix:ino"),
          Files.getLastModifiedTime(file).to(TimeUnit.NANOSECONDS),
          Files.readString(file));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file, e);
    }
  }
}
