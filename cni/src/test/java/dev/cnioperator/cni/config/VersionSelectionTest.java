package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.CniVersion;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VersionSelectionTest {
  private static final Set<CniVersion> DEBIAN_PLUGINS =
      Set.of(
          CniVersion.V0_1_0,
          CniVersion.V0_2_0,
          CniVersion.V0_3_0,
          CniVersion.V0_3_1,
          CniVersion.V0_4_0,
          CniVersion.V1_0_0);

  @Test
  void withoutCniVersionsTheDeclaredVersionIsUsed() {
    assertThat(VersionSelection.select(list("'cniVersion':'0.4.0'"))).isEqualTo(CniVersion.V0_4_0);
  }

  @Test
  void withCniVersionsTheHighestTheRuntimeSpeaksIsPicked() {
    NetworkConfigList list =
        list("'cniVersion':'1.1.0','cniVersions':['0.3.1','1.0.0','1.1.0','1.2.0','3.0.0']");

    assertThat(VersionSelection.select(list)).isEqualTo(CniVersion.V1_1_0);
    assertThat(list.cniVersions()).contains(new CniVersion(1, 2, 0));
  }

  @Test
  void pluginSupportNarrowsTheChoice() {
    NetworkConfigList list = list("'cniVersion':'1.1.0','cniVersions':['0.4.0','1.0.0','1.1.0']");

    assertThat(list.selectVersion(DEBIAN_PLUGINS)).isEqualTo(CniVersion.V1_0_0);
    assertThat(list.selectVersion(Set.of(CniVersion.V0_4_0))).isEqualTo(CniVersion.V0_4_0);
  }

  @Test
  void noVersionEveryPluginSupportsIsAnIncompatibleVersionError() {
    NetworkConfigList list = list("'cniVersion':'1.1.0'");

    CniException e =
        catchThrowableOfType(CniException.class, () -> list.selectVersion(DEBIAN_PLUGINS));

    assertThat(e.code()).isEqualTo(1);
    assertThat(e.msg()).isEqualTo("no CNI version of network db is supported by its plugins");
    assertThat(e.details())
        .isEqualTo(
            "network declares [1.1.0], runtime speaks [0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0],"
                + " plugins support [0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0]");
  }

  @Test
  void theVersionsAllPluginsSupportAreTheIntersection() {
    assertThat(
            VersionSelection.supportedByAll(
                List.of(
                    DEBIAN_PLUGINS,
                    List.of(CniVersion.V0_4_0, CniVersion.V1_0_0, CniVersion.V1_1_0))))
        .containsExactlyInAnyOrder(CniVersion.V0_4_0, CniVersion.V1_0_0);
    assertThat(VersionSelection.supportedByAll(List.of())).isEmpty();
  }

  private static NetworkConfigList list(String versions) {
    return NetworkConfigList.fromJson(
        ConfigValidatorTest.object("{'name':'db'," + versions + ",'plugins':[{'type':'bridge'}]}"));
  }
}
