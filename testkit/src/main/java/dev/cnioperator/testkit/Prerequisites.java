package dev.cnioperator.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs from the machine. In CI ({@code CI=true}) a missing prerequisite fails the
 * test; elsewhere the test is skipped with a message that says what is missing and how to get it.
 */
public final class Prerequisites {
  private Prerequisites() {}

  public static boolean inCi() {
    String ci = System.getenv("CI");
    return ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false") && !ci.equals("0");
  }

  /** Fails (CI) or skips (elsewhere) unless {@code ok}. */
  public static void require(boolean ok, String what, String howToGet) {
    if (ok) {
      return;
    }
    String message = "missing prerequisite: " + what + " (" + howToGet + ")";
    if (inCi()) {
      Assertions.fail(message + "; in CI a missing prerequisite is a failure");
    }
    Assumptions.abort(message);
  }

  public static void requireRoot() {
    require(
        "root".equals(System.getProperty("user.name")) || isUidZero(),
        "root (network namespaces, plugins and the host paths need it)",
        "run the tests as root, as CI does");
  }

  /** Finds {@code name} on PATH, failing or skipping when it is not there. */
  public static Path requireCommand(String name) {
    Path found = which(name);
    require(found != null, "the command '" + name + "' on PATH", "e2e/bin/provision installs it");
    return found;
  }

  /** Fails or skips unless the file exists and is executable. */
  public static Path requireExecutable(Path path, String what) {
    require(
        path != null && Files.isExecutable(path),
        what + " at " + path,
        "run e2e/bin/provision (the README's test command does)");
    return path;
  }

  static Path which(String name) {
    String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
    for (String dir : path.split(":")) {
      Path candidate = Path.of(dir, name);
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  private static boolean isUidZero() {
    try {
      return Files.readString(Path.of("/proc/self/status"))
          .lines()
          .filter(l -> l.startsWith("Uid:"))
          .anyMatch(l -> l.split("\\s+")[1].equals("0"));
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
