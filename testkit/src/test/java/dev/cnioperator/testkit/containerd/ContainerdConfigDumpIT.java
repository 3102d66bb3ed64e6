package dev.cnioperator.testkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each release reads the config the fixture writes for it as meant: {@code containerd config dump}
 * prints the configuration after every plugin has decoded its section, so a key a release does not
 * know (which containerd ignores without a word) shows up as a default here. containerd 2.4 prints
 * the version 3 config it is given migrated to its own version 4.
 */
class ContainerdConfigDumpIT {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(ContainerdRelease.class)
  void containerdReadsEverySettingWhereTheFixtureWroteIt(ContainerdRelease release)
      throws IOException {
    for (ContainerdFixture.NetnsPlacement netns : ContainerdFixture.NetnsPlacement.values()) {
      ContainerdConfig config =
          new ContainerdConfig(
              release,
              dir.resolve("root"),
              dir.resolve("state"),
              dir.resolve("run/containerd.sock"),
              dir.resolve("net.d"),
              dir.resolve("bin"),
              PauseImage.NAME,
              SnapshotterProbe.NATIVE,
              netns);
      Path file = Files.writeString(dir.resolve("config.toml"), config.toml());

      CommandResult dump =
          Commands.run(
                  release.binDir().resolve("containerd").toString(),
                  "--config",
                  file.toString(),
                  "config",
                  "dump")
              .orThrow(release + " config dump");

      Map<String, JsonNode> expected = ContainerdSettings.expected(config);
      if (release == ContainerdRelease.V2_X) {
        expected = ContainerdSettings.migratedToVersionFour(expected);
      }
      assertThat(ContainerdSettings.mismatches(expected, ContainerdSettings.parse(dump.stdout())))
          .as("%s reads %s", release, file)
          .isEmpty();
    }
  }
}
