package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.config.LibcniConfigSamples.Sample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LibcniConfigFileTest {
  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.cnioperator.cni.config.LibcniConfigSamples#all")
  void refusesExactlyWhatLibcniRefuses(Sample sample) throws IOException {
    Optional<String> problem = LibcniConfigFile.problem(sample.writeInto(dir));
    assertThat(problem.isEmpty()).as("loads; problem: %s", problem).isEqualTo(sample.loads());
  }

  @Test
  void theMessagesAreLibcnis() throws IOException {
    assertThat(problem("10-a.conflist", "{\"name\":\"a\",\"plugins\":[]}"))
        .contains("error parsing configuration list: no plugins in list");
    assertThat(problem("10-a.conflist", "{\"name\":\"a\"}")).contains("no plugin configs found");
    assertThat(problem("10-a.conflist", "{\"name\":\"a\",\"plugins\":[{\"type\":5}]}"))
        .contains(
            "failed to parse plugin config 0: error parsing configuration: json: cannot unmarshal"
                + " number into Go struct field PluginConf.type of type string");
    assertThat(problem("10-a.conf", "{\"name\":\"a\",\"plugins\":[{\"type\":\"bridge\"}]}"))
        .contains("error parsing configuration: missing 'type'");
    assertThat(problem("10-a.conflist", "{\"name\":\"a\",\"disableGC\":\"Yes\"}"))
        .contains("error parsing configuration list: invalid value \"yes\" for disableGC");
    assertThat(problem("10-a.conflist", "{\"name\":\"a\",\"plu"))
        .hasValueSatisfying(m -> assertThat(m).startsWith("error parsing configuration list: "));
  }

  @Test
  void aFileThatCannotBeReadIsRefusedNamingIt() {
    Path missing = dir.resolve("10-gone.conf");
    assertThat(LibcniConfigFile.problem(missing))
        .hasValueSatisfying(m -> assertThat(m).startsWith("error reading " + missing));
  }

  @Test
  void extensionIsGosFilepathExt() {
    assertThat(LibcniConfigFile.extension("10-a.conflist")).isEqualTo(".conflist");
    assertThat(LibcniConfigFile.extension(".10-a.conflist.x-1.tmp")).isEqualTo(".tmp");
    assertThat(LibcniConfigFile.extension(".conf")).isEqualTo(".conf");
    assertThat(LibcniConfigFile.extension("conf")).isEmpty();
  }

  private Optional<String> problem(String file, String content) throws IOException {
    Path f = dir.resolve(file);
    Files.writeString(f, content);
    return LibcniConfigFile.problem(f);
  }
}
