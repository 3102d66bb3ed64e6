package dev.cnioperator.testkit.containerd;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The mounts a container runtime leaves under its directories (sandbox rootfs overlays, {@code
 * /dev/shm} tmpfs, network namespace bind mounts): finding them, unmounting them, and deleting a
 * directory tree only once nothing is mounted inside it.
 */
final class HostMounts {
  private static final Path MOUNTINFO = Path.of("/proc/self/mountinfo");

  private HostMounts() {}

  /** Mount points strictly under {@code dir}, deepest first. */
  static List<Path> under(Path dir) {
    Path base = dir.toAbsolutePath().normalize();
    List<Path> found = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(MOUNTINFO)) {
        String[] fields = line.split(" ");
        if (fields.length > 4) {
          Path mountPoint = Path.of(unescape(fields[4]));
          if (mountPoint.startsWith(base) && !mountPoint.equals(base)) {
            found.add(mountPoint);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + MOUNTINFO, e);
    }
    found.sort(Comparator.comparingInt(Path::getNameCount).reversed());
    return found;
  }

  /** Unmounts everything under {@code dir}; returns what could not be unmounted. */
  static List<String> unmountUnder(Path dir) {
    List<String> failures = new ArrayList<>();
    for (Path mountPoint : under(dir)) {
      CommandResult r = Commands.run("umount", mountPoint.toString());
      if (!r.ok()) {
        // Busy (a process still holds it): detach it now, the kernel frees it when released.
        CommandResult lazy = Commands.run("umount", "-l", mountPoint.toString());
        if (!lazy.ok()) {
          failures.add(mountPoint + ": " + r.stderr().strip());
        }
      }
    }
    return failures;
  }

  /** Deletes {@code dir} and everything in it; refuses while anything is mounted inside it. */
  static void deleteTree(Path dir) {
    List<Path> mounted = under(dir);
    if (!mounted.isEmpty()) {
      throw new IllegalStateException(
          "not deleting " + dir + ": still mounted inside it: " + mounted);
    }
    if (!Files.exists(dir)) {
      return;
    }
    try {
      Files.walkFileTree(
          dir,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
              }
              throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
              Files.deleteIfExists(d);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + dir, e);
    }
  }

  /** mountinfo writes space, tab, newline and backslash as three-digit octal escapes. */
  static String unescape(String field) {
    StringBuilder sb = new StringBuilder(field.length());
    for (int i = 0; i < field.length(); i++) {
      char c = field.charAt(i);
      if (c == '\\' && isOctal(field, i + 1)) {
        sb.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
        i += 3;
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  private static boolean isOctal(String s, int from) {
    if (from + 3 > s.length()) {
      return false;
    }
    for (int i = from; i < from + 3; i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '7') {
        return false;
      }
    }
    return true;
  }
}
