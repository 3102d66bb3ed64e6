package dev.cnioperator.bench;

import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A benchmark's result as Markdown: a heading, the machine it ran on, tables and notes. Printed to
 * stdout and written to {@code bench/target/bench/<name>.md}, from which docs/benchmarks.md is
 * made.
 */
public final class BenchReport {
  private final String name;
  private final StringBuilder text = new StringBuilder();

  public BenchReport(String name, String title) {
    this.name = name;
    text.append("### ").append(title).append("\n\n");
    text.append("Run ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append(" on ")
        .append(machine())
        .append(".\n\n");
  }

  /**
   * Makes a benchmark that fails exit with status 1, instead of waiting forever for the threads of
   * the agents and clients it started; every main calls this first.
   */
  public static void exitOnFailure() {
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, e) -> {
          e.printStackTrace();
          System.exit(1);
        });
  }

  /** Starts a table with these column headings. */
  public Table table(String... headings) {
    return new Table(headings);
  }

  public BenchReport note(String line) {
    text.append(line).append("\n\n");
    return this;
  }

  /**
   * Where the benchmarks write: their reports, their work directories, unpacked images ({@code
   * bench/target/bench} in the checkout).
   */
  public static Path outputDir() {
    return ToolPaths.repoRoot().resolve("bench/target/bench");
  }

  /** Prints the report and writes it under {@link #outputDir()}; returns the file. */
  public Path write() {
    System.out.println();
    System.out.println(text);
    Path file = outputDir().resolve(name + ".md");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.out.println("(written to " + file + ")");
    return file;
  }

  /** Number of processors and total memory, as the kernel reports them. */
  static String machine() {
    long memKib = 0;
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          memKib = Long.parseLong(line.replaceAll("\\D+", ""));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return String.format(
        Locale.ROOT,
        "%d CPUs, %.1f GiB RAM, load average %s, Java %s",
        Runtime.getRuntime().availableProcessors(),
        memKib / 1024.0 / 1024.0,
        loadAverage(),
        System.getProperty("java.version"));
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + "/" + f[1] + "/" + f[2];
    } catch (IOException e) {
      return "?";
    }
  }

  static String ms(double millis) {
    return String.format(Locale.ROOT, "%.0f ms", millis);
  }

  static String ratio(double r) {
    return String.format(Locale.ROOT, "%.2f", r);
  }

  static String met(boolean met) {
    return met ? "yes" : "**no**";
  }

  /** One Markdown table, appended to the report when {@link #end()} is called. */
  public final class Table {
    private final List<String> rows = new ArrayList<>();

    private Table(String... headings) {
      rows.add("| " + String.join(" | ", headings) + " |");
      rows.add("|" + "---|".repeat(headings.length));
    }

    public Table row(Object... cells) {
      List<String> c = new ArrayList<>();
      for (Object o : cells) {
        c.add(String.valueOf(o));
      }
      rows.add("| " + String.join(" | ", c) + " |");
      System.out.println("  " + rows.get(rows.size() - 1));
      return this;
    }

    public BenchReport end() {
      text.append(String.join("\n", rows)).append("\n\n");
      return BenchReport.this;
    }
  }
}
