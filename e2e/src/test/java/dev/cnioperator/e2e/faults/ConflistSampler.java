package dev.cnioperator.e2e.faults;

import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.config.NetworkConfigList;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads conflist files over and over while a fault happens, as a container runtime would when a pod
 * starts, and counts what a runtime would have suffered: a file missing, or one that is not a
 * complete valid configuration list. Every distinct content seen is kept, to prove which revisions
 * the node went through.
 */
final class ConflistSampler implements AutoCloseable {

  /** What the sampler saw: reads, and the reads that found no file or a broken one. */
  record Figures(long reads, long missing, long invalid, List<String> firstInvalid) {
    long lost() {
      return missing + invalid;
    }

    @Override
    public String toString() {
      return "reads=" + reads + " missing=" + missing + " invalid=" + invalid;
    }
  }

  private final List<Path> files;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Set<String> seen = new LinkedHashSet<>();
  private final List<String> firstInvalid = new ArrayList<>();
  private final Thread thread;
  private long reads;
  private long missing;
  private long invalid;

  private ConflistSampler(List<Path> files) {
    this.files = List.copyOf(files);
    this.thread = new Thread(this::loop, "conflist-sampler");
    thread.setDaemon(true);
  }

  /** Starts reading {@code files}, which must all exist now. */
  static ConflistSampler start(List<Path> files) {
    ConflistSampler s = new ConflistSampler(files);
    s.thread.start();
    return s;
  }

  private void loop() {
    while (running.get()) {
      for (Path f : files) {
        sample(f);
      }
      try {
        // Often enough to land inside a write, gentle enough for a 2-core machine.
        Thread.sleep(2);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private synchronized void sample(Path f) {
    reads++;
    String content;
    try {
      content = Files.readString(f);
    } catch (NoSuchFileException e) {
      missing++;
      return;
    } catch (IOException e) {
      record(f + ": " + e);
      return;
    }
    try {
      NetworkConfigList.parse(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      seen.add(content);
    } catch (CniException | IllegalArgumentException e) {
      record(f + ": " + e.getMessage() + " in " + content);
    }
  }

  private void record(String what) {
    invalid++;
    if (firstInvalid.size() < 3) {
      firstInvalid.add(what);
    }
  }

  /** Every distinct valid content read so far, in the order first seen. */
  synchronized List<String> contents() {
    return List.copyOf(seen);
  }

  /** Stops sampling and returns the figures. */
  Figures stop() {
    running.set(false);
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      return new Figures(reads, missing, invalid, List.copyOf(firstInvalid));
    }
  }

  @Override
  public void close() {
    stop();
  }
}
