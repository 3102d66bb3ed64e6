package dev.cnioperator.cni.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.cache.ResultCache;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.exec.Attachment;
import dev.cnioperator.cni.exec.CniArg;
import dev.cnioperator.cni.result.Result;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden test of the runtime: SPEC-1.1.0.md's Section 1 example list and the Appendix's
 * attachment (capability args {@code portMappings} and {@code mac}, generic argument argA=foo,
 * CNI_IFNAME=eth0) go through {@link CniRuntime} ADD, CHECK and DEL with plugins that answer what
 * the Appendix says they answer; what each plugin got on stdin must be the Appendix's request.
 *
 * <p>Two spec errata are put right in the expectations, and nothing else is changed: the Appendix
 * bridge requests drop the example's {@code ipam.routes} (Section 3 says it passes unchanged), and
 * its {@code prevResult}s carry no {@code cniVersion}, which a runtime must send (libcni marshals
 * the result with its version; a plugin needs it to decode prevResult).
 */
class AppendixRuntimeGoldenTest {
  private static final ObjectMapper JSONC =
      JsonMapper.builder().enable(JsonReadFeature.ALLOW_JAVA_COMMENTS).build();
  private static final String SPEC = "/dev/cnioperator/cni/config/";

  @TempDir Path pluginDir;
  @TempDir Path cacheDir;

  private RecordingExecutor executor;
  private CniRuntime runtime;
  private NetworkConfigList list;
  private Attachment attachment;

  @BeforeEach
  void setUp() throws IOException {
    RecordingExecutor.installBinaries(pluginDir, "bridge", "tuning", "portmap");
    String tuningResult = resource("appendix-add-tuning-result.json").toString();
    executor =
        new RecordingExecutor()
            .answer("bridge", "ADD", resource("appendix-add-bridge-result.json").toString())
            .answer("tuning", "ADD", tuningResult)
            // "The portmap plugin outputs the exact same result" as its prevResult.
            .answer("portmap", "ADD", tuningResult);
    runtime =
        new CniRuntime(
            executor, List.of(pluginDir), new ResultCache(cacheDir), Duration.ofSeconds(5));
    list =
        NetworkConfigList.parse(
            JSONC.writeValueAsBytes(resource("spec-1.1.0-section1-example.jsonc")));
    attachment =
        new Attachment(
            "example",
            "/var/run/netns/blue",
            "eth0",
            List.of(new CniArg("argA", "foo")),
            Map.of(
                "portMappings",
                JSONC.readTree(
                    "[{\"hostPort\": 8080, \"containerPort\": 80, \"protocol\": \"tcp\"}]"),
                "mac",
                JSONC.readTree("\"00:11:22:33:44:66\"")));
  }

  @Test
  void addSendsTheAppendixRequestsAndCachesTheFinalResult() {
    Result result = runtime.addNetworkList(list, attachment);

    assertThat(executor.sequence()).containsExactly("bridge ADD", "tuning ADD", "portmap ADD");
    assertRequest(0, "appendix-add-1-bridge-request.json");
    assertRequest(1, "appendix-add-2-tuning-request.json");
    assertRequest(2, "appendix-add-3-portmap-request.json");
    assertThat(result.interfaces().get(2).mac()).isEqualTo("00:11:22:33:44:66");
    assertThat(runtime.cache().read("dbnet", "example", "eth0")).isPresent();
    assertThat(executor.calls.get(0).env())
        .containsEntry("CNI_CONTAINERID", "example")
        .containsEntry("CNI_NETNS", "/var/run/netns/blue")
        .containsEntry("CNI_IFNAME", "eth0")
        .containsEntry("CNI_ARGS", "argA=foo");
  }

  @Test
  void checkSendsTheAppendixRequestsWithTheCachedResult() {
    runtime.addNetworkList(list, attachment);
    executor.calls.clear();

    runtime.checkNetworkList(list, attachment);

    assertThat(executor.sequence())
        .containsExactly("bridge CHECK", "tuning CHECK", "portmap CHECK");
    assertRequest(0, "appendix-check-1-bridge-request.json");
    assertRequest(1, "appendix-check-2-tuning-request.json");
    assertRequest(2, "appendix-check-3-portmap-request.json");
  }

  @Test
  void delRunsPluginsInReverseOrderWithCachedResultThenForgetsTheAttachment() {
    runtime.addNetworkList(list, attachment);
    executor.calls.clear();

    runtime.delNetworkList(list, attachment);

    assertThat(executor.sequence()).containsExactly("portmap DEL", "tuning DEL", "bridge DEL");
    assertRequest(0, "appendix-del-1-portmap-request.json");
    assertRequest(1, "appendix-del-2-tuning-request.json");
    assertRequest(2, "appendix-del-3-bridge-request.json");
    assertThat(runtime.cache().read("dbnet", "example", "eth0")).isEmpty();
  }

  private void assertRequest(int call, String appendixResource) {
    ObjectNode expected = resource(appendixResource);
    if (expected.path("type").asText().equals("bridge")) {
      ObjectNode ipam = (ObjectNode) expected.get("ipam");
      assertThat(ipam.has("routes")).as("the ipam.routes erratum is still there").isFalse();
      ipam.putArray("routes").addObject().put("dst", "0.0.0.0/0");
    }
    if (expected.has("prevResult")) {
      ObjectNode prev = (ObjectNode) expected.get("prevResult");
      assertThat(prev.has("cniVersion")).as("the prevResult erratum is still there").isFalse();
      prev.put("cniVersion", "1.1.0");
    }
    JsonNode sent = executor.calls.get(call).stdin();
    assertThat(sent).as(appendixResource).isEqualTo(expected);
  }

  private static ObjectNode resource(String name) {
    try (InputStream in = AppendixRuntimeGoldenTest.class.getResourceAsStream(SPEC + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + SPEC + name);
      }
      return (ObjectNode) JSONC.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
