package dev.cnioperator.cni.hardening;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * One case of the bad-input corpus ({@code corpus/bad/<kind>/}): the input file, its bytes ({@code
 * .gz} files are stored compressed and given to the code under test uncompressed) and the error its
 * {@code <case>.expect} sidecar says it must produce.
 *
 * <p>A sidecar holds {@code key: value} lines; {@code #} starts a comment saying why the case
 * matters. {@code problem: rule | path | message fragment} may repeat, in the order the problems
 * must come.
 */
record CorpusCase(String name, Path file, Map<String, String> expect, List<Problem> problems) {

  /** One configuration problem a case must produce. */
  record Problem(String rule, String path, String message) {}

  /** Every case of {@code kind} (conflists, results, cache), in file name order. */
  static Stream<CorpusCase> all(String kind) {
    return FuzzSeeds.files("corpus/bad/" + kind).stream().map(CorpusCase::load);
  }

  static CorpusCase load(Path file) {
    String fileName = file.getFileName().toString();
    String base =
        fileName.endsWith(".gz") ? fileName.substring(0, fileName.length() - 3) : fileName;
    String name = base.substring(0, base.lastIndexOf('.'));
    Path sidecar = file.resolveSibling(name + ".expect");
    Map<String, String> expect = new LinkedHashMap<>();
    List<Problem> problems = new ArrayList<>();
    try {
      for (String line : Files.readAllLines(sidecar, StandardCharsets.UTF_8)) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int colon = line.indexOf(':');
        String key = line.substring(0, colon).trim();
        String value = line.substring(colon + 1).trim();
        if (key.equals("problem")) {
          String[] parts = value.split("\\|", -1);
          problems.add(new Problem(parts[0].trim(), parts[1].trim(), parts[2].trim()));
        } else {
          expect.put(key, value);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("case " + fileName + " needs a sidecar " + sidecar, e);
    }
    return new CorpusCase(name, file, Map.copyOf(expect), List.copyOf(problems));
  }

  /** The input as the code under test receives it. */
  byte[] bytes() {
    if (!file.getFileName().toString().endsWith(".gz")) {
      return FuzzSeeds.read(file);
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The file name without {@code .gz}: its extension says how to read it. */
  String inputName() {
    String fileName = file.getFileName().toString();
    return fileName.endsWith(".gz") ? fileName.substring(0, fileName.length() - 3) : fileName;
  }

  /** An expected value the sidecar must have. */
  String required(String key) {
    String value = expect.get(key);
    if (value == null) {
      throw new IllegalStateException(name + ".expect has no \"" + key + ":\" line");
    }
    return value;
  }

  int code() {
    return Integer.parseInt(required("code"));
  }

  @Override
  public String toString() {
    return name;
  }
}
