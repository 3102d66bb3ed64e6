package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed CRD YAML in crds/ must be byte for byte what the crd-generator made from the Java
 * types in this build (the generator names a file "X-v1.yml", crds/ names it "X.yaml").
 */
class CrdsUpToDateTest {

  private static final String REGENERATE =
      "crds/ is out of date with the Java types in api/. Regenerate it with api/update-crds,"
          + " then commit crds/ (and run charts/cni-operator/hack/sync-crds for the chart)";

  private static final Path MODULE = Path.of(System.getProperty("basedir", ".")).toAbsolutePath();
  private static final Path GENERATED = MODULE.resolve("target/classes/META-INF/fabric8");
  private static final Path COMMITTED = MODULE.getParent().resolve("crds");

  @Test
  void generatorMadeOneCrdPerResource() throws IOException {
    assertThat(yamlFiles(GENERATED, "-v1.yml").keySet())
        .containsExactly(
            "cninetworks.cnioperator.dev",
            "cninodes.cnioperator.dev",
            "cniplugins.cnioperator.dev");
  }

  @Test
  void committedCrdsMatchTheGeneratedOnes() throws IOException {
    assertThat(yamlFiles(COMMITTED, ".yaml"))
        .as(REGENERATE)
        .isEqualTo(yamlFiles(GENERATED, "-v1.yml"));
  }

  /** CRD name (file name without the suffix) to content, for every file with that suffix. */
  private static Map<String, String> yamlFiles(Path dir, String suffix) throws IOException {
    Map<String, String> files = new TreeMap<>();
    if (!Files.isDirectory(dir)) {
      return files;
    }
    try (Stream<Path> list = Files.list(dir)) {
      List<Path> yamls = list.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
      for (Path p : yamls) {
        String name = p.getFileName().toString();
        files.put(name.substring(0, name.length() - suffix.length()), Files.readString(p));
      }
    }
    return files;
  }
}
