package dev.cnioperator.cni.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginInvokerTest {
  private static final Attachment ATTACHMENT =
      new Attachment(
          "c1", "/var/run/netns/x", "eth0", List.of(new CniArg("K8S_POD_NAME", "web")), Map.of());

  @TempDir Path dir;
  FakePlugins plugins;
  PluginInvoker invoker;

  @BeforeEach
  void setUp() {
    plugins = new FakePlugins(dir);
    invoker =
        new PluginInvoker(
            new ProcessPluginExecutor(), new PluginLocator(List.of(dir)), Duration.ofSeconds(10));
  }

  private byte[] invoke(String type) {
    return invoker.invoke(
        type, Verb.ADD, ATTACHMENT, "{\"in\":1}".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void successReturnsStdoutAndPassesStdinThrough() {
    plugins.write("echo", "cat");
    assertThat(new String(invoke("echo"), StandardCharsets.UTF_8)).isEqualTo("{\"in\":1}");
  }

  @Test
  void pluginSeesExactlyTheCniVariablesAndPath() {
    plugins.write("env", "env");
    String out = new String(invoke("env"), StandardCharsets.UTF_8);
    Map<String, String> env = new TreeMap<>();
    for (String line : out.split("\n")) {
      int eq = line.indexOf('=');
      env.put(line.substring(0, eq), line.substring(eq + 1));
    }
    // /bin/sh itself adds PWD (and SHLVL with some shells); nothing of ours may leak in.
    env.remove("PWD");
    env.remove("SHLVL");
    env.remove("_");
    assertThat(env)
        .containsOnlyKeys(
            "CNI_COMMAND",
            "CNI_CONTAINERID",
            "CNI_NETNS",
            "CNI_IFNAME",
            "CNI_ARGS",
            "CNI_PATH",
            "PATH")
        .containsEntry("CNI_COMMAND", "ADD")
        .containsEntry("CNI_CONTAINERID", "c1")
        .containsEntry("CNI_NETNS", "/var/run/netns/x")
        .containsEntry("CNI_IFNAME", "eth0")
        .containsEntry("CNI_ARGS", "K8S_POD_NAME=web")
        .containsEntry("CNI_PATH", dir.toString());
  }

  @Test
  void nonZeroExitWithSpecErrorBecomesPluginExceptionWithItsCodeMsgAndDetails() {
    plugins.write(
        "bad",
        "echo '{\"cniVersion\":\"1.1.0\",\"code\":7,\"msg\":\"Invalid Configuration\","
            + "\"details\":\"Network 192.168.0.0/31 too small\"}'; echo oops >&2; exit 1");
    PluginException e = catchThrowableOfType(PluginException.class, () -> invoke("bad"));
    assertThat(e.code()).isEqualTo(7);
    assertThat(e.msg()).isEqualTo("Invalid Configuration");
    assertThat(e.details()).isEqualTo("Network 192.168.0.0/31 too small");
    assertThat(e.plugin()).isEqualTo("bad");
    assertThat(e.verb()).isEqualTo(Verb.ADD);
    assertThat(e.exitCode()).isEqualTo(1);
    assertThat(e.stderrTail()).isEqualTo("oops");
    assertThat(e.getMessage()).contains("plugin=bad", "verb=ADD", "stderr=oops");
  }

  @Test
  void everyWellKnownAndPluginOwnCodeIsKept() {
    for (int code : new int[] {1, 2, 3, 4, 5, 6, 7, 11, 50, 51, 100, 4242}) {
      plugins.write("c" + code, "echo '{\"code\":" + code + ",\"msg\":\"m\"}'; exit 3");
      PluginException e = catchThrowableOfType(PluginException.class, () -> invoke("c" + code));
      assertThat(e.code()).as("code %d", code).isEqualTo(code);
    }
  }

  @Test
  void garbageOnStdoutIsInvalidPluginOutputShowingTheFirstBytes() {
    plugins.write("garbage", "echo 'this is not json'; exit 1");
    PluginException e = catchThrowableOfType(PluginException.class, () -> invoke("garbage"));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
    assertThat(e.details()).contains("this is not json");
  }

  @Test
  void emptyStdoutWithStderrIsInvalidPluginOutputWithTheStderrTail() {
    plugins.write("silent", "echo 'segfault somewhere' >&2; exit 2");
    PluginException e = catchThrowableOfType(PluginException.class, () -> invoke("silent"));
    assertThat(e.code()).isEqualTo(999);
    assertThat(e.details()).contains("stdout was empty");
    assertThat(e.exitCode()).isEqualTo(2);
    assertThat(e.getMessage()).contains("segfault somewhere");
  }

  @Test
  void hugeStderrKeepsOnlyItsTailAndDoesNotBlockThePlugin() {
    // 2 MiB of stderr is far beyond a pipe buffer: a runtime that reads stdout only would hang.
    plugins.write(
        "noisy",
        "head -c 2097152 /dev/zero | tr '\\0' 'x' >&2; echo END >&2;"
            + " echo '{\"code\":11,\"msg\":\"later\"}'; exit 1");
    PluginException e = catchThrowableOfType(PluginException.class, () -> invoke("noisy"));
    assertThat(e.code()).isEqualTo(11);
    assertThat(e.stderrTail()).endsWith("END").startsWith("...");
    assertThat(e.stderrTail().length()).isLessThanOrEqualTo(64 * 1024 + 3);
  }

  @Test
  void bigStdinIsWrittenEvenWhenThePluginReadsItLate() {
    plugins.write("slowreader", "sleep 0.2; wc -c");
    byte[] stdin = new byte[1 << 20];
    Arrays.fill(stdin, (byte) 'a');
    byte[] out = invoker.invoke("slowreader", Verb.ADD, ATTACHMENT, stdin);
    assertThat(new String(out, StandardCharsets.UTF_8).strip()).isEqualTo("1048576");
  }

  @Test
  void missingBinaryIsPluginNotFoundNamingTheDirectoriesSearched() {
    assertThatThrownBy(() -> invoke("nosuch"))
        .isInstanceOf(CniException.class)
        .hasMessageContaining("nosuch")
        .hasMessageContaining(dir.toString())
        .extracting(t -> ((CniException) t).code())
        .isEqualTo(CniErrorCode.PLUGIN_NOT_FOUND.code());
  }

  @Test
  void typeWithAPathIsRefusedBeforeAnythingRuns() {
    plugins.write("evil", "touch " + dir.resolve("ran") + "; echo '{}'");
    for (String type : new String[] {"../evil", "/bin/sh", "sub\\evil", ".."}) {
      CniException e = catchThrowableOfType(CniException.class, () -> invoke(type));
      assertThat(e.code()).as(type).isEqualTo(CniErrorCode.INVALID_NETWORK_CONFIG.code());
    }
    assertThat(dir.resolve("ran")).doesNotExist();
  }

  @Test
  void versionGetsDummyAttachmentVariablesForOldPlugins() {
    plugins.write("env", "env");
    String out =
        new String(invoker.invoke("env", Verb.VERSION, null, new byte[0]), StandardCharsets.UTF_8);
    assertThat(out).contains("CNI_COMMAND=VERSION", "CNI_NETNS=dummy", "CNI_IFNAME=dummy");
    assertThat(out).doesNotContain("CNI_CONTAINERID");
  }
}
