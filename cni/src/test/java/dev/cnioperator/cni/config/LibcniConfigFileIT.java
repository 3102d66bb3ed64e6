package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.config.LibcniConfigSamples.Sample;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * libcni's own {@code cnitool} 1.3.0 (the libcni Multus v4.2 is built with) as the judge of {@link
 * LibcniConfigSamples}: it loads a directory with {@code ConfListFromFile} and {@code
 * ConfFromFile}, as Multus does, and a name no file has makes it read every file and answer "no net
 * configuration with name" when all of them load, or stop at the one that does not.
 */
class LibcniConfigFileIT {
  private static final String NO_SUCH_NETWORK = "no-such-network";

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @MethodSource("dev.cnioperator.cni.config.LibcniConfigSamples#all")
  void cnitoolLoadsExactlyTheSamplesMarkedToLoad(Sample sample) throws IOException {
    sample.writeInto(dir);
    CommandResult r =
        Commands.run(
            List.of(
                ToolPaths.cnitool().toString(),
                "check",
                NO_SUCH_NETWORK,
                dir.resolve("no-netns").toString()),
            Map.of("NETCONFPATH", dir.toString()),
            null,
            Duration.ofSeconds(30));
    String said = r.stdout() + r.stderr();
    assertThat(r.exitCode()).as(said).isNotZero();
    assertThat(said.contains("no net configuration with name \"" + NO_SUCH_NETWORK + "\""))
        .as("cnitool loads it; it said: %s", said)
        .isEqualTo(sample.loads());
  }
}
