package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.result.Results;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bad plugin output in {@code corpus/bad/results} is refused with the code and message its
 * sidecar names: read as a request of {@code request-version} would read it (none: as a cached
 * result), then, with {@code convert-to}, converted to that version.
 */
class BadResultCorpusTest {

  static Stream<CorpusCase> cases() {
    return CorpusCase.all("results");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void isRefusedWithItsExpectedError(CorpusCase c) {
    CniVersion request = version(c, "request-version");
    CniVersion convertTo = version(c, "convert-to");

    CniException refused =
        catchThrowableOfType(
            CniException.class,
            () -> {
              var result = Results.parse(c.bytes(), request);
              if (convertTo != null) {
                result.convertTo(convertTo);
              }
            });

    assertThat(refused).as(c.name() + " must be refused").isNotNull();
    assertThat(refused.code()).as(refused.getMessage()).isEqualTo(c.code());
    assertThat(refused.getMessage()).contains(c.required("message"));
  }

  @Test
  void theCorpusHasTheCasesTheIssueAsksFor() {
    assertThat(cases().count()).isGreaterThanOrEqualTo(10);
  }

  private static CniVersion version(CorpusCase c, String key) {
    String text = c.expect().get(key);
    return text == null ? null : CniVersion.parse(text).orElseThrow();
  }
}
