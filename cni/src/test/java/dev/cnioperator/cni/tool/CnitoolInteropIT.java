package dev.cnioperator.cni.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.exec.ProcessPluginExecutor;
import dev.cnioperator.cni.runtime.HostNetworkFixture;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.Prerequisites;
import dev.cnioperator.testkit.ToolPaths;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * libcni's own cnitool as the independent peer: what it adds, this library CHECKs and DELs from
 * libcni's cache (/var/lib/cni, cnitool has no setting for another), and the other way round; and a
 * cache file cnitool wrote is read and written back by {@link ResultCache} byte for byte.
 */
class CnitoolInteropIT {
  private HostNetworkFixture host;
  private Map<String, String> env;
  private Path cacheFile;
  private final ResultCache libcniCache = new ResultCache(ResultCache.DEFAULT_DIR);

  @BeforeEach
  void setUp() {
    Prerequisites.requireRoot();
    host = new HostNetworkFixture("iop");
    host.writeConflist(host.conflist("1.1.0", host.bridgePlugin(), host.portmapPlugin()));
    env = new HashMap<>();
    env.put("NETCONFPATH", host.netconfDir.toString());
    env.put("CNI_PATH", ToolPaths.pluginDir().toString());
    env.put("CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0");
    env.put(
        "CAP_ARGS",
        "{\"portMappings\":" + host.portMappings() + ",\"zeta\":{\"b\":[1,2],\"a\":\"x\"}}");
    cacheFile =
        libcniCache.resultPath(
            host.network, CniTool.containerIdFor(host.netns.path().toString()), "eth0");
  }

  @AfterEach
  void tearDown() {
    if (host != null) {
      // Whichever tool made it, cnitool DEL removes reservations and portmap chains after a
      // failure.
      cnitool("del");
      host.close();
    }
  }

  @Test
  void whatCnitoolAddsThisLibraryChecksAndDeletes() {
    cnitool("add").orThrow("cnitool add");
    assertThat(cacheFile).as("cnitool's cache entry, at the name this library derives").exists();
    assertThat(host.reservations()).hasSize(1);

    assertThat(cni("check")).as(err.toString()).isZero();
    host.netns.exec("ip", "link", "del", "eth0");
    assertThat(cni("check")).isEqualTo(1);
    assertThat(err.toString()).contains("bridge");

    assertThat(cni("del")).as(err.toString()).isZero();

    assertThat(cacheFile).doesNotExist();
    assertThat(host.reservations()).isEmpty();
    assertThat(HostNetworkFixture.natRulesFor(containerId())).isEmpty();
  }

  @Test
  void whatThisLibraryAddsCnitoolChecksAndDeletes() {
    assertThat(cni("add")).as(err.toString()).isZero();
    assertThat(cacheFile).exists();
    assertThat(HostNetworkFixture.natRulesFor(containerId())).isNotEmpty();

    // cnitool's CHECK gets prevResult only from our cache file: bridge refuses a CHECK without it.
    cnitool("check").orThrow("cnitool check");
    cnitool("del").orThrow("cnitool del");

    assertThat(cacheFile).doesNotExist();
    assertThat(host.reservations()).isEmpty();
    assertThat(HostNetworkFixture.natRulesFor(containerId())).isEmpty();
  }

  @Test
  void aCacheFileCnitoolWroteIsReadAndWrittenBackByteForByte() throws Exception {
    cnitool("add").orThrow("cnitool add");
    byte[] written = Files.readAllBytes(cacheFile);

    CachedAttachment entry = libcniCache.read(host.network, containerId(), "eth0").orElseThrow();

    assertThat(entry.netns()).isEqualTo(host.netns.path().toString());
    assertThat(entry.cniArgs())
        .containsExactly(
            new CniArg("IgnoreUnknown", "1"),
            new CniArg("K8S_POD_NAMESPACE", "default"),
            new CniArg("K8S_POD_NAME", "web-0"));
    assertThat(entry.capabilityArgs()).containsOnlyKeys("portMappings", "zeta");
    assertThat(entry.config())
        .isEqualTo(Files.readAllBytes(host.netconfDir.resolve("10-" + host.network + ".conflist")));
    assertThat(entry.result().get("cniVersion").asText()).isEqualTo("1.1.0");
    assertThat(libcniCache.list(host.network)).containsExactly(entry);

    ResultCache ours = new ResultCache(host.work.resolve("copy"));
    ours.write(entry);
    byte[] rewritten = Files.readAllBytes(ours.resultPath(host.network, containerId(), "eth0"));
    assertThat(new String(rewritten, StandardCharsets.UTF_8))
        .isEqualTo(new String(written, StandardCharsets.UTF_8));
  }

  @Test
  void aCnitoolAttachmentOnDebiansPluginsAtVersion100IsCheckedAndDeletedHere() {
    host.writeConflist(host.conflist("1.0.0", host.bridgePlugin(), host.tuningPlugin()));
    env.put("CNI_PATH", ToolPaths.debianPluginDir().toString());
    cnitool("add").orThrow("cnitool add");
    assertThat(host.reservations()).hasSize(1);

    assertThat(cni("check")).as(err.toString()).isZero();
    assertThat(cni("del")).as(err.toString()).isZero();

    assertThat(cacheFile).doesNotExist();
    assertThat(host.reservations()).isEmpty();
  }

  private String containerId() {
    return CniTool.containerIdFor(host.netns.path().toString());
  }

  private CommandResult cnitool(String verb) {
    return Commands.run(
        List.of(ToolPaths.cnitool().toString(), verb, host.network, host.netns.path().toString()),
        env,
        null,
        Duration.ofMinutes(1));
  }

  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int cni(String verb) {
    err.reset();
    return new CniTool(new ProcessPluginExecutor(), Duration.ofSeconds(30))
        .run(
            new String[] {verb, host.network, host.netns.path().toString()},
            env,
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
  }
}
