package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.cache.ResultCache;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad file in {@code corpus/bad/cache}, placed in a libcni result cache as the entry of
 * attachment fuzznet/c0ffee/eth0, is refused at the stage its sidecar names (read, attachment,
 * config or result) with its code and message; listing the network skips it. The good entries in
 * {@code corpus/good/cache} pass every stage, so the bad ones fail for their own reason.
 */
class BadCacheFileCorpusTest {
  private static final String NETWORK = "fuzznet";
  private static final String CONTAINER = "c0ffee";
  private static final String IF_NAME = "eth0";

  @TempDir Path cacheDir;

  static Stream<CorpusCase> cases() {
    return CorpusCase.all("cache");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedAtItsStageWithItsExpectedError(CorpusCase c) throws IOException {
    ResultCache cache = place(c.bytes());

    CachedEntryUse.Outcome outcome = CachedEntryUse.use(cache, NETWORK, CONTAINER, IF_NAME);

    assertThat(outcome.error()).as(c.name() + " must be refused").isNotNull();
    assertThat(outcome.stage()).as(outcome.error().getMessage()).isEqualTo(c.required("stage"));
    assertThat(outcome.error().code()).as(outcome.error().getMessage()).isEqualTo(c.code());
    assertThat(outcome.error().getMessage()).contains(c.required("message"));
    if (outcome.stage().equals("read")) {
      assertThat(cache.list(NETWORK)).isEmpty();
    }
  }

  @Test
  void theGoodEntriesPassEveryStage() throws IOException {
    for (Path good : FuzzSeeds.files("corpus/good/cache")) {
      ResultCache cache = place(FuzzSeeds.read(good));
      assertThat(CachedEntryUse.use(cache, NETWORK, CONTAINER, IF_NAME).error())
          .as(good.toString())
          .isNull();
    }
  }

  @Test
  void theCorpusHasTheCasesTheIssueAsksFor() {
    assertThat(cases().count()).isGreaterThanOrEqualTo(8);
  }

  private ResultCache place(byte[] file) throws IOException {
    ResultCache cache = new ResultCache(cacheDir, false);
    Path path = cache.resultPath(NETWORK, CONTAINER, IF_NAME);
    Files.createDirectories(path.getParent());
    Files.write(path, file);
    return cache;
  }
}
