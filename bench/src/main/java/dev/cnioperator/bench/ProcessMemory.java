package dev.cnioperator.bench;

import dev.cnioperator.testkit.Commands;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Memory of a benchmark's processes: resident set from /proc, and a JVM's live heap. */
final class ProcessMemory {
  private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");

  private ProcessMemory() {}

  /** VmRSS of process {@code pid}, in MiB. */
  static double rssMiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
        }
      }
      throw new IllegalStateException("no VmRSS for process " + pid);
    } catch (IOException e) {
      throw new UncheckedIOException("process " + pid + " is gone", e);
    }
  }

  /**
   * The heap JVM {@code pid} still uses after a full collection, in MiB: what its data holds, not
   * the garbage a collector has yet to reclaim ({@code jcmd GC.run}, then {@code GC.heap_info}).
   */
  static double liveHeapMiB(long pid) {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    Commands.run(jcmd, Long.toString(pid), "GC.run").orThrow("jcmd GC.run");
    String info =
        Commands.run(jcmd, Long.toString(pid), "GC.heap_info")
            .orThrow("jcmd GC.heap_info")
            .stdout();
    // One line per generation (the serial collector's young and tenured), or one for G1's heap.
    Matcher m = HEAP_USED.matcher(info);
    long kib = 0;
    boolean found = false;
    while (m.find()) {
      kib += Long.parseLong(m.group(1));
      found = true;
    }
    if (!found) {
      throw new IllegalStateException("no heap figure in jcmd GC.heap_info: " + info);
    }
    return kib / 1024.0;
  }
}
