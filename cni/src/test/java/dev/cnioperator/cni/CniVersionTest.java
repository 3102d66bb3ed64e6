package dev.cnioperator.cni;

import static dev.cnioperator.cni.CniVersion.Strictness.KNOWN;
import static dev.cnioperator.cni.CniVersion.Strictness.LIBCNI;
import static dev.cnioperator.cni.CniVersion.Strictness.SEMVER;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one version grammar, at each of its strictnesses. */
class CniVersionTest {

  @ParameterizedTest(name = "\"{0}\" known={1} semver={2} libcni={3}")
  @CsvSource(
      nullValues = "-",
      value = {
        "1.0.0,   1.0.0, 1.0.0,   1.0.0",
        "0.1.0,   0.1.0, 0.1.0,   0.1.0",
        "1.2.0,   -,     1.2.0,   1.2.0",
        "0.5.0,   -,     0.5.0,   0.5.0",
        "1.0,     -,     -,       1.0.0",
        "1,       -,     -,       1.0.0",
        "01.0.0,  -,     -,       1.0.0",
        "1.00.0,  -,     -,       1.0.0",
        "1.0.0.0, -,     -,       -",
        "1..0,    -,     -,       -",
        "'',      -,     -,       -",
        "v1.0.0,  -,     -,       -",
        "1.0.0-rc1, -,   -,       -",
        "+1.0.0,  -,     -,       -",
        "999999999.0.0, -, 999999999.0.0, 999999999.0.0",
        "1000000000.0.0, -, -,    -",
      })
  void readsTextAsEachStrictnessAllows(String text, String known, String semver, String libcni) {
    assertThat(CniVersion.parse(text, KNOWN).map(CniVersion::toString).orElse(null))
        .isEqualTo(known);
    assertThat(CniVersion.parse(text, SEMVER).map(CniVersion::toString).orElse(null))
        .isEqualTo(semver);
    assertThat(CniVersion.parse(text, LIBCNI).map(CniVersion::toString).orElse(null))
        .isEqualTo(libcni);
    assertThat(CniVersion.parse(text)).isEqualTo(CniVersion.parse(text, KNOWN));
  }
}
