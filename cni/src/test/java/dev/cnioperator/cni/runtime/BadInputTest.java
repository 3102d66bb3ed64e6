package dev.cnioperator.cni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.ConfigDirectory;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.FakePlugins;
import dev.cnioperator.cni.exec.PluginException;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bad input end to end, from a configuration directory to real (script) plugin processes: each case
 * is a typed error that says what is wrong, no plugin runs on a bad configuration, and nothing is
 * left behind (no cache entry, no process).
 */
class BadInputTest {
  @TempDir Path dir;
  Path netconf;
  Path bin;
  Path cacheDir;
  Path ran;
  CniRuntime runtime;
  final Attachment attachment = Attachment.of("c1", "/var/run/netns/none", "eth0");

  @BeforeEach
  void setUp() throws IOException {
    netconf = Files.createDirectories(dir.resolve("net.d"));
    bin = Files.createDirectories(dir.resolve("bin"));
    cacheDir = dir.resolve("cache");
    ran = dir.resolve("ran");
    FakePlugins plugins = new FakePlugins(bin);
    String result = "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.200.0.2/24\"}]}";
    plugins.write("good", "touch " + ran + "; cat >/dev/null; echo '" + result + "'");
    plugins.write(
        "hang", "touch " + ran + "; echo $$ > " + dir.resolve("hang.pid") + "; sleep 300");
    plugins.write("garbage", "echo 'Segmentation fault (core dumped)'");
    plugins.write("crash", "echo 'panic: runtime error' >&2; exit 2");
    runtime =
        new CniRuntime(
            new ProcessPluginExecutor(),
            List.of(bin),
            new ResultCache(cacheDir),
            Duration.ofSeconds(1));
  }

  @AfterEach
  void nothingIsLeftBehind() throws IOException {
    assertThat(cacheDir.resolve("results"))
        .satisfiesAnyOf(p -> assertThat(p).doesNotExist(), p -> assertThat(p).isEmptyDirectory());
    Path pid = dir.resolve("hang.pid");
    if (Files.exists(pid)) {
      long hung = Long.parseLong(Files.readString(pid).strip());
      assertThat(ProcessHandle.of(hung).map(ProcessHandle::isAlive).orElse(false))
          .as("the hung plugin was killed")
          .isFalse();
    }
  }

  private NetworkConfigList load(String conflist) throws IOException {
    Files.writeString(netconf.resolve("10-bad.conflist"), conflist);
    return ConfigDirectory.load(netconf, "bad");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "malformed JSON    | {\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":[{\"type\":\"good\"} | 10-bad.conflist",
        "missing type      | {\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":[{\"ipam\":{}}]}       | type",
        "type with a path  | {\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":[{\"type\":\"../bin/good\"}]} | type",
        "reserved key      | {\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":[{\"type\":\"good\",\"runtimeConfig\":{}}]} | runtimeConfig",
        "cni.dev/ key      | {\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":[{\"type\":\"good\",\"cni.dev/x\":1}]} | cni.dev/x",
        "unknown version   | {\"cniVersion\":\"9.9.9\",\"name\":\"bad\",\"plugins\":[{\"type\":\"good\"}]}  | 9.9.9",
      })
  void badConfigurationIsATypedErrorNamingTheProblemAndNoPluginRuns(
      String what, String conflist, String named) {
    CniException e =
        catchThrowableOfType(
            CniException.class, () -> runtime.addNetworkList(load(conflist), attachment));
    assertThat(e).as(what).isNotNull();
    assertThat(e.getMessage()).as(what).contains(named);
    assertThat(ran).as("no plugin ran").doesNotExist();
  }

  @Test
  void hungPluginIsKilledAndReportedAsATimeout() throws IOException {
    NetworkConfigList list = load(conflist("good", "hang"));
    CniException e =
        catchThrowableOfType(CniException.class, () -> runtime.addNetworkList(list, attachment));
    assertThat(e.code()).isEqualTo(CniErrorCode.PLUGIN_TIMEOUT.code());
    assertThat(e.getMessage()).contains("hang");
  }

  @Test
  void pluginPrintingGarbageIsInvalidPluginOutputShowingWhatItPrinted() throws IOException {
    PluginException e =
        catchThrowableOfType(
            PluginException.class,
            () -> runtime.addNetworkList(load(conflist("garbage")), attachment));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
    assertThat(e.getMessage()).contains("Segmentation fault");
  }

  @Test
  void pluginExitingNonZeroWithoutJsonIsInvalidPluginOutputWithItsStderr() throws IOException {
    PluginException e =
        catchThrowableOfType(
            PluginException.class,
            () -> runtime.addNetworkList(load(conflist("crash")), attachment));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
    assertThat(e.exitCode()).isEqualTo(2);
    assertThat(e.getMessage()).contains("panic: runtime error");
  }

  @Test
  void missingBinaryIsPluginNotFoundNamingCniPathAndNothingRuns() throws IOException {
    CniException e =
        catchThrowableOfType(
            CniException.class,
            () -> runtime.addNetworkList(load(conflist("absent", "good")), attachment));
    assertThat(e.code()).isEqualTo(CniErrorCode.PLUGIN_NOT_FOUND.code());
    assertThat(e.getMessage()).contains("absent").contains(bin.toString());
    assertThat(ran).doesNotExist();
  }

  private static String conflist(String... types) {
    return "{\"cniVersion\":\"1.0.0\",\"name\":\"bad\",\"plugins\":["
        + String.join(",", Stream.of(types).map(t -> "{\"type\":\"" + t + "\"}").toList())
        + "]}";
  }
}
