package dev.cnioperator.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.agent.host.HostPaths;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {

  @Test
  void runWithoutANodeNameRefusesToStartAndSaysWhatIsMissing() {
    StringWriter err = new StringWriter();
    RunCommand run = new RunCommand();
    CommandLine line = new CommandLine(run).setErr(new PrintWriter(err));
    // An explicit empty value, whatever NODE_NAME the test process has.
    int code = line.execute("--node-name=", "--listen=127.0.0.1:0");
    assertThat(code).isEqualTo(2);
  }

  @Test
  void runReadsEveryHostPathFromItsFlag() {
    RunCommand run = new RunCommand();
    new CommandLine(run)
        .parseArgs(
            "--node-name=n1",
            "--conf-dir=/x/net.d",
            "--bin-dir=/x/bin",
            "--cache-dir=/x/cache",
            "--netns-dir=/x/netns",
            "--state-dir=/x/state",
            "--bundled-plugin-dir=/x/plugins",
            "--multus-conf-dir=/x/multus/net.d",
            "--multus-cache-dir=/x/multus/cache",
            "--cri-socket=/x/cri.sock");
    assertThat(run.nodeName).isEqualTo("n1");
    assertThat(run.confDir).hasToString("/x/net.d");
    assertThat(run.binDir).hasToString("/x/bin");
    assertThat(run.cacheDir).hasToString("/x/cache");
    assertThat(run.netnsDir).hasToString("/x/netns");
    assertThat(run.stateDir).hasToString("/x/state");
    assertThat(run.bundledPluginDir).hasToString("/x/plugins");
    assertThat(run.multusConfDir).hasToString("/x/multus/net.d");
    assertThat(run.multusCacheDir).hasToString("/x/multus/cache");
    assertThat(run.criSocket).hasToString("/x/cri.sock");
  }

  @Test
  void multusDirectoriesDefaultToMultussOwn() {
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs("--node-name=n1");
    assertThat(run.paths().multusConfDir()).hasToString("/etc/cni/multus/net.d");
    assertThat(run.paths().multusCacheDir()).hasToString("/var/lib/cni/multus");
  }

  @Test
  void hostPathsAsFlagsParseBackToTheSamePaths() {
    HostPaths paths =
        HostPaths.under(Path.of("/sandbox/n1"), Path.of("/x/plugins"))
            .withNetnsDir(Path.of("/x/netns"));
    List<String> args = new ArrayList<>(List.of("--node-name=n1"));
    paths.asFlags().forEach((flag, value) -> args.add(flag + "=" + value));
    RunCommand run = new RunCommand();
    new CommandLine(run).parseArgs(args.toArray(String[]::new));
    assertThat(run.paths()).isEqualTo(paths);
  }
}
