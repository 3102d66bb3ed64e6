package dev.cnioperator.cni.hardening;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Seed inputs for the fuzz targets, read from the test resources already in the repository: the
 * spec's worked examples, the result conversion examples, and the bad-input corpus (whose files are
 * near misses, which is what a mutator starts best from). Jazzer runs each seed as a regression
 * case and, when fuzzing, starts mutating from them.
 */
final class FuzzSeeds {
  /** Reads the spec's JSON-with-comments example so the seed is the plain JSON a runtime sees. */
  private static final JsonMapper JSONC =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();

  private static final String SPEC_EXAMPLES = "dev/cnioperator/cni/config";

  private static final int MAX_SEED_BYTES = 16 * 1024;

  private FuzzSeeds() {}

  /** Configuration lists: the Section 1 example and the bad conflists. */
  static Stream<byte[]> conflists() {
    List<byte[]> seeds = new ArrayList<>();
    for (Path file : files(SPEC_EXAMPLES)) {
      if (file.getFileName().toString().endsWith(".jsonc")) {
        seeds.add(withoutComments(file));
      }
    }
    seeds.addAll(contents(files("corpus/bad/conflists")));
    return seeds.stream();
  }

  /** Single plugin objects: the Appendix request configurations, which are legacy .conf shaped. */
  static Stream<byte[]> pluginConfs() {
    return files(SPEC_EXAMPLES).stream()
        .filter(f -> f.getFileName().toString().contains("-request"))
        .map(FuzzSeeds::read);
  }

  /** Plugin results of every version: conversion examples, Appendix results, bad results. */
  static Stream<byte[]> results() {
    List<byte[]> seeds = new ArrayList<>(contents(files("results/conversions")));
    files(SPEC_EXAMPLES).stream()
        .filter(f -> f.getFileName().toString().endsWith("-result.json"))
        .map(FuzzSeeds::read)
        .forEach(seeds::add);
    seeds.addAll(contents(files("corpus/bad/results")));
    return seeds.stream();
  }

  /** libcni cache files: the good ones this corpus derives its bad cases from, and the bad ones. */
  static Stream<byte[]> cacheFiles() {
    List<byte[]> seeds = new ArrayList<>(contents(files("corpus/good/cache")));
    seeds.addAll(contents(files("corpus/bad/cache")));
    return seeds.stream();
  }

  /** The regular files under a classpath directory, in name order; skips .expect sidecars. */
  static List<Path> files(String resourceDir) {
    URL url = FuzzSeeds.class.getClassLoader().getResource(resourceDir);
    if (url == null) {
      throw new IllegalStateException("no test resource directory " + resourceDir);
    }
    try (Stream<Path> entries = Files.list(Path.of(url.toURI()))) {
      return entries
          .filter(Files::isRegularFile)
          .filter(f -> !f.getFileName().toString().endsWith(".expect"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The files' bytes, leaving out compressed ones and any over {@link #MAX_SEED_BYTES}: a seed that
   * long would raise libFuzzer's input length limit and slow every mutation after it.
   */
  private static List<byte[]> contents(List<Path> files) {
    return files.stream()
        .filter(f -> !f.getFileName().toString().endsWith(".gz"))
        .map(FuzzSeeds::read)
        .filter(bytes -> bytes.length <= MAX_SEED_BYTES)
        .toList();
  }

  private static byte[] withoutComments(Path file) {
    try {
      return JSONC.writeValueAsBytes(JSONC.readTree(file.toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
