package dev.cnioperator.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the kernel accounts to one process in /proc: status fields and CPU time used. */
final class ProcAccounting {
  /** Clock ticks per second of /proc/<pid>/stat; 100 on Linux on x86-64 and arm64. */
  private static final double TICKS_PER_SECOND = 100;

  private ProcAccounting() {}

  /**
   * A number field of {@code /proc/<pid>/status}, e.g. {@code VmRSS:} in KiB or {@code Threads:}.
   */
  static long status(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.replaceAll("\\D+", ""));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("process " + pid + " is gone", e);
    }
    throw new IllegalStateException(field + " missing for pid " + pid);
  }

  /** Resident set size in MiB (VmRSS). */
  static double rssMib(long pid) {
    return status(pid, "VmRSS:") / 1024.0;
  }

  /** CPU milliseconds the process has used so far, user plus system, all threads. */
  static double cpuMillis(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // The command name (field 2) may hold spaces; the fields after it are space-separated.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / TICKS_PER_SECOND;
    } catch (IOException e) {
      throw new UncheckedIOException("process " + pid + " is gone", e);
    }
  }
}
