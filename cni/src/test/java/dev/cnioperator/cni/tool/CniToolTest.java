package dev.cnioperator.cni.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.exec.FakePlugins;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CniToolTest {
  @TempDir Path dir;
  Path netconf;
  Path plugins;
  Path cache;
  final ByteArrayOutputStream out = new ByteArrayOutputStream();
  final ByteArrayOutputStream err = new ByteArrayOutputStream();
  final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    netconf = Files.createDirectories(dir.resolve("net.d"));
    plugins = Files.createDirectories(dir.resolve("bin"));
    cache = dir.resolve("cache");
    Files.writeString(
        netconf.resolve("10-toolnet.conflist"),
        "{\"cniVersion\":\"1.0.0\",\"name\":\"toolnet\",\"plugins\":[{\"type\":\"rec\","
            + "\"capabilities\":{\"portMappings\":true}}]}");
    // Records its stdin and environment, answers a 1.0.0 result for ADD and nothing otherwise.
    new FakePlugins(plugins)
        .write(
            "rec",
            "cat > "
                + dir.resolve("stdin-$CNI_COMMAND")
                + "; env > "
                + dir.resolve("env-$CNI_COMMAND")
                + "\nif [ \"$CNI_COMMAND\" = ADD ]; then echo '{\"cniVersion\":\"1.0.0\","
                + "\"ips\":[{\"address\":\"10.200.9.2/24\"}]}'; fi");
    env.put("NETCONFPATH", netconf.toString());
    env.put("CNI_PATH", plugins.toString());
    env.put("CNI_CACHE_DIR", cache.toString());
  }

  private int run(String... args) {
    return new CniTool(new ProcessPluginExecutor(), Duration.ofSeconds(10))
        .run(
            args,
            env,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void containerIdIsCnitoolsHashOfTheAbsoluteNetnsPath() {
    // Known vector: "cnitool-" + hex(sha512("/var/run/netns/blue")[:10]).
    assertThat(CniTool.containerIdFor("/var/run/netns/blue"))
        .isEqualTo("cnitool-296747069b8a02dc4e2a");
    assertThat(CniTool.containerIdFor("/var/run/netns/../netns/blue/"))
        .isEqualTo("cnitool-296747069b8a02dc4e2a");
  }

  @Test
  void addCheckDelAddressTheSameAttachmentAsCnitoolWould() throws Exception {
    env.put("CNI_ARGS", "K8S_POD_NAME=web-0;IgnoreUnknown=1");
    env.put(
        "CAP_ARGS", "{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80}],\"mac\":\"x\"}");

    assertThat(run("add", "toolnet", "/var/run/netns/blue")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("10.200.9.2/24");
    Path entry = cache.resolve("results/toolnet-cnitool-296747069b8a02dc4e2a-eth0");
    assertThat(entry).exists();
    assertThat(Files.readString(dir.resolve("env-ADD")))
        .contains("CNI_CONTAINERID=cnitool-296747069b8a02dc4e2a")
        .contains("CNI_IFNAME=eth0")
        .contains("CNI_ARGS=K8S_POD_NAME=web-0;IgnoreUnknown=1");
    assertThat(Files.readString(dir.resolve("stdin-ADD")))
        .contains("\"runtimeConfig\":{\"portMappings\":[{\"hostPort\":8080,\"containerPort\":80}]}")
        .doesNotContain("\"mac\"");

    assertThat(run("check", "toolnet", "/var/run/netns/blue")).as(err.toString()).isZero();
    assertThat(Files.readString(dir.resolve("stdin-CHECK"))).contains("\"prevResult\"");
    assertThat(run("del", "toolnet", "/var/run/netns/blue")).as(err.toString()).isZero();
    assertThat(entry).doesNotExist();
  }

  @Test
  void ifnameComesFromCniIfname() {
    env.put("CNI_IFNAME", "net1");
    assertThat(run("add", "toolnet", "/var/run/netns/blue")).isZero();
    assertThat(cache.resolve("results/toolnet-cnitool-296747069b8a02dc4e2a-net1")).exists();
  }

  @Test
  void badInputIsAClearErrorAndExitOne() {
    env.put("CAP_ARGS", "{not json");
    assertThat(run("add", "toolnet", "/var/run/netns/blue")).isEqualTo(1);
    assertThat(err.toString()).contains("CAP_ARGS");

    env.remove("CAP_ARGS");
    env.put("CNI_ARGS", "novalue");
    assertThat(run("add", "toolnet", "/var/run/netns/blue")).isEqualTo(1);
    assertThat(err.toString()).contains("CNI_ARGS");

    assertThat(run("add", "nosuchnet", "/var/run/netns/blue")).isEqualTo(1);
    assertThat(err.toString()).contains("nosuchnet");
  }

  @Test
  void usageErrorsExitTwo() {
    assertThat(run("add", "toolnet")).isEqualTo(2);
    assertThat(run("frobnicate", "toolnet", "/x")).isEqualTo(2);
    assertThat(err.toString()).contains("usage: cni add|check|del|gc|status|version");
  }
}
