package dev.cnioperator.cni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniException;
import dev.cnioperator.cni.cache.CachedAttachment;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.GcAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.PluginException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runtime's decisions (ordering, caching, version rules, error gathering) with a fake. */
class CniRuntimeTest {
  private static final String RESULT_110 =
      "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/x\"}],"
          + "\"ips\":[{\"address\":\"10.200.0.5/24\",\"interface\":0}]}";

  @TempDir Path pluginDir;
  @TempDir Path cacheDir;
  RecordingExecutor executor;
  CniRuntime runtime;
  final Attachment attachment = Attachment.of("c1", "/run/netns/x", "eth0");

  @BeforeEach
  void setUp() {
    RecordingExecutor.installBinaries(pluginDir, "a", "b", "c");
    executor =
        new RecordingExecutor()
            .answer("a", "ADD", RESULT_110)
            .answer("b", "ADD", RESULT_110)
            .answer("c", "ADD", RESULT_110);
    runtime =
        new CniRuntime(
            executor, List.of(pluginDir), new ResultCache(cacheDir), Duration.ofSeconds(5));
  }

  private static NetworkConfigList list(String version, String extra, String... types) {
    StringBuilder plugins = new StringBuilder();
    for (String type : types) {
      plugins
          .append(plugins.length() == 0 ? "" : ",")
          .append("{\"type\":\"")
          .append(type)
          .append("\"}");
    }
    String json =
        "{\"cniVersion\":\""
            + version
            + "\",\"name\":\"net1\""
            + extra
            + ",\"plugins\":["
            + plugins
            + "]}";
    return NetworkConfigList.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void addChainsPrevResultAndCachesOnlyAfterTheLastPlugin() {
    NetworkConfigList net = list("1.1.0", "", "a", "b");
    runtime.addNetworkList(net, attachment);
    assertThat(executor.calls.get(0).stdin().has("prevResult")).isFalse();
    assertThat(
            executor
                .calls
                .get(1)
                .stdin()
                .get("prevResult")
                .get("ips")
                .get(0)
                .get("address")
                .asText())
        .isEqualTo("10.200.0.5/24");
    CachedAttachment cached = runtime.cache().read("net1", "c1", "eth0").orElseThrow();
    assertThat(cached.config()).isEqualTo(net.bytes());
    assertThat(cached.netns()).isEqualTo("/run/netns/x");
  }

  @Test
  void addStopsAtTheFirstFailureAndCachesNothing() {
    executor.fail("a", "ADD", 7, "bad config");
    PluginException e =
        catchThrowableOfType(
            PluginException.class,
            () -> runtime.addNetworkList(list("1.1.0", "", "a", "b"), attachment));
    assertThat(e.code()).isEqualTo(7);
    assertThat(e.plugin()).isEqualTo("a");
    assertThat(executor.sequence()).containsExactly("a ADD");
    assertThat(runtime.cache().read("net1", "c1", "eth0")).isEmpty();
  }

  @Test
  void addWithGarbageResultIsInvalidPluginOutput() {
    executor.answer("a", "ADD", "not json at all");
    PluginException e =
        catchThrowableOfType(
            PluginException.class,
            () -> runtime.addNetworkList(list("1.1.0", "", "a"), attachment));
    assertThat(e.code()).isEqualTo(CniErrorCode.INVALID_PLUGIN_OUTPUT.code());
    assertThat(e.details()).contains("not json at all");
  }

  @Test
  void checkIsRefusedBelow040AndSkippedWhenDisabled() {
    CniException old =
        catchThrowableOfType(
            CniException.class, () -> runtime.checkNetworkList(list("0.3.1", "", "a"), attachment));
    assertThat(old.code()).isEqualTo(CniErrorCode.INCOMPATIBLE_VERSION.code());
    runtime.checkNetworkList(list("1.0.0", ",\"disableCheck\":true", "a"), attachment);
    assertThat(executor.calls).isEmpty();
  }

  @Test
  void checkWithoutCachedResultIsUnknownContainer() {
    CniException e =
        catchThrowableOfType(
            CniException.class, () -> runtime.checkNetworkList(list("1.0.0", "", "a"), attachment));
    assertThat(e.code()).isEqualTo(CniErrorCode.UNKNOWN_CONTAINER.code());
    assertThat(executor.calls).isEmpty();
  }

  @Test
  void prevResultIsConvertedToTheConfigurationsVersion() {
    runtime.addNetworkList(list("1.1.0", "", "a"), attachment);
    executor.calls.clear();
    runtime.checkNetworkList(list("0.4.0", "", "a"), attachment);
    assertThat(executor.calls.get(0).stdin().get("prevResult").get("cniVersion").asText())
        .isEqualTo("0.4.0");
  }

  @Test
  void delWithoutCacheRunsWithoutPrevResultAndBelow040NeverSendsIt() {
    runtime.delNetworkList(list("1.0.0", "", "a", "b"), attachment);
    assertThat(executor.sequence()).containsExactly("b DEL", "a DEL");
    assertThat(executor.calls).allSatisfy(c -> assertThat(c.stdin().has("prevResult")).isFalse());

    runtime.addNetworkList(list("0.3.1", "", "a"), attachment);
    executor.calls.clear();
    runtime.delNetworkList(list("0.3.1", "", "a"), attachment);
    assertThat(executor.calls.get(0).stdin().has("prevResult")).isFalse();
    assertThat(runtime.cache().read("net1", "c1", "eth0")).isEmpty();
  }

  @Test
  void failedDelKeepsTheCacheEntryForTheNextTry() {
    runtime.addNetworkList(list("1.0.0", "", "a"), attachment);
    executor.fail("a", "DEL", 11, "try again later");
    catchThrowableOfType(
        PluginException.class, () -> runtime.delNetworkList(list("1.0.0", "", "a"), attachment));
    assertThat(runtime.cache().read("net1", "c1", "eth0")).isPresent();
  }

  @Test
  void gcDeletesStaleCachedAttachmentsRunsEveryPluginAndGathersAllErrors() {
    NetworkConfigList net = list("1.1.0", "", "a", "b", "c");
    runtime.addNetworkList(net, attachment);
    Attachment live = Attachment.of("live", "/run/netns/y", "eth0");
    runtime.addNetworkList(net, live);
    executor.calls.clear();
    executor.fail("a", "GC", 5, "disk on fire").fail("c", "GC", 100, "own error");

    GcException e =
        catchThrowableOfType(
            GcException.class,
            () -> runtime.gcNetworkList(net, List.of(new GcAttachment("live", "eth0"))));

    assertThat(executor.sequence())
        .containsExactly("c DEL", "b DEL", "a DEL", "a GC", "b GC", "c GC");
    assertThat(executor.calls.get(0).env()).containsEntry("CNI_CONTAINERID", "c1");
    assertThat(e.failures()).extracting(CniException::code).containsExactly(5, 100);
    var gcRequest = executor.calls.get(3).stdin();
    assertThat(gcRequest.get("cni.dev/valid-attachments").toString())
        .isEqualTo("[{\"containerID\":\"live\",\"ifname\":\"eth0\"}]");
    assertThat(gcRequest.get("cni.dev/attachments"))
        .isEqualTo(gcRequest.get("cni.dev/valid-attachments"));
    assertThat(executor.calls.get(3).env()).containsOnlyKeys("CNI_COMMAND", "CNI_PATH");
    assertThat(runtime.cache().list("net1"))
        .extracting(CachedAttachment::containerId)
        .containsExactly("live");
  }

  @Test
  void gcDoesNothingWhenDisabledAndOnlyDeletesBelow110() {
    runtime.gcNetworkList(list("1.1.0", ",\"disableGC\":true", "a"), List.of());
    assertThat(executor.calls).isEmpty();
    runtime.addNetworkList(list("1.0.0", "", "a"), attachment);
    executor.calls.clear();
    runtime.gcNetworkList(list("1.0.0", "", "a"), List.of());
    assertThat(executor.sequence()).containsExactly("a DEL");
  }

  @Test
  void statusStopsAtTheFirstPluginThatIsNotReady() {
    executor.fail("b", "STATUS", 50, "not available");
    PluginException e =
        catchThrowableOfType(
            PluginException.class,
            () -> runtime.getStatusNetworkList(list("1.1.0", "", "a", "b", "c")));
    assertThat(e.code()).isEqualTo(CniErrorCode.PLUGIN_NOT_AVAILABLE.code());
    assertThat(executor.sequence()).containsExactly("a STATUS", "b STATUS");
    executor.calls.clear();
    runtime.getStatusNetworkList(list("1.0.0", "", "a"));
    assertThat(executor.calls).isEmpty();
  }

  @Test
  void versionInfoParsesThePluginsAnswer() {
    executor.answer(
        "a", "VERSION", "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\"]}");
    assertThat(runtime.getVersionInfo("a").supportedVersions()).containsExactly("0.4.0", "1.0.0");
    executor.answer("b", "VERSION", "garbage");
    PluginException e =
        catchThrowableOfType(PluginException.class, () -> runtime.getVersionInfo("b"));
    assertThat(e.code()).isEqualTo(999);
  }

  @Test
  void validationNamesEveryPluginThatIsMissingOrTooOld() {
    executor
        .answer(
            "a",
            "VERSION",
            "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[\"1.0.0\",\"1.1.0\"]}")
        .answer(
            "b",
            "VERSION",
            "{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\"]}");
    runtime.validateNetworkList(list("1.0.0", "", "a", "b"));

    String json =
        "{\"cniVersion\":\"1.1.0\",\"name\":\"net1\",\"plugins\":[{\"type\":\"a\","
            + "\"ipam\":{\"type\":\"nosuchipam\"}},{\"type\":\"b\"},{\"type\":\"nosuch\"}]}";
    CniException e =
        catchThrowableOfType(
            CniException.class,
            () ->
                runtime.validateNetworkList(
                    NetworkConfigList.parse(json.getBytes(StandardCharsets.UTF_8))));
    assertThat(e.details())
        .contains("nosuchipam")
        .contains("plugin b does not support version 1.1.0")
        .contains("\"nosuch\" not found");
  }
}
