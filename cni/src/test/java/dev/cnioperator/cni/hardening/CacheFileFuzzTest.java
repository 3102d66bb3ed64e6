package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz target: any bytes as a file in libcni's result cache (what containerd, CRI-O or cnitool left
 * in {@code /var/lib/cni/results}). Reading it and every step of using it may refuse only with
 * {@link CniException}; listing the network's entries skips it rather than failing; an entry that
 * reads is written back and reads the same.
 */
class CacheFileFuzzTest {
  private static final String NETWORK = "fuzznet";
  private static final String CONTAINER = "c0ffee";
  private static final String IF_NAME = "eth0";

  private static Path dir;
  private static ResultCache cache;

  @BeforeAll
  static void createCache() throws IOException {
    dir = Files.createTempDirectory("cni-cache-fuzz-");
    cache = new ResultCache(dir, false);
    Files.createDirectories(dir.resolve("results"));
  }

  @AfterAll
  static void removeCache() throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @MethodSource("dev.cnioperator.cni.hardening.FuzzSeeds#cacheFiles")
  @DictionaryEntries({
    "\"kind\"",
    "\"cniCacheV1\"",
    "\"containerId\"",
    "\"config\"",
    "\"ifName\"",
    "\"networkName\"",
    "\"netns\"",
    "\"cniArgs\"",
    "\"capabilityArgs\"",
    "\"result\"",
    "\"cniVersion\"",
    "\"ips\"",
    "\"interfaces\"",
    "\"eyJ",
    "==",
    "\"fuzznet\"",
    "\"c0ffee\""
  })
  @FuzzTest
  void readAndUse(byte[] file) throws IOException {
    Files.write(cache.resultPath(NETWORK, CONTAINER, IF_NAME), file);

    CachedEntryUse.use(cache, NETWORK, CONTAINER, IF_NAME);
    cache.list(NETWORK);
    writesBackTheSame();
  }

  private static void writesBackTheSame() {
    Optional<CachedAttachment> entry;
    try {
      entry = cache.read(NETWORK, CONTAINER, IF_NAME);
      entry.orElseThrow().attachment();
    } catch (CniException unusable) {
      return;
    }
    CachedAttachment read = entry.get();
    try {
      cache.write(read);
    } catch (CniException unwritable) {
      // Names from inside the file that cannot name a cache file ('/' in them) are refused.
      return;
    }
    Path written = cache.resultPath(read.networkName(), read.containerId(), read.ifName());
    try {
      assertThat(cache.read(read.networkName(), read.containerId(), read.ifName())).contains(read);
    } finally {
      // Names from inside the file may differ from the fuzzed file's: keep the directory small.
      if (!written.equals(cache.resultPath(NETWORK, CONTAINER, IF_NAME))) {
        written.toFile().delete();
      }
    }
  }
}
