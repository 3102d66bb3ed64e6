package dev.cnioperator.cni.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.cnioperator.cni.CniVersion;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Request derivation details beyond the Appendix (SPEC-1.1.0.md Section 3). */
class PluginConfigTest {
  private static final Map<String, JsonNode> ARGS =
      Map.of(
          "mac", TextNode.valueOf("00:11:22:33:44:66"),
          "bandwidth", JsonNodeFactory.instance.objectNode().put("ingressRate", 1000),
          "ips", JsonNodeFactory.instance.arrayNode().add("10.200.0.5/24"));

  @Test
  void runtimeConfigHoldsOnlyCapabilitiesDeclaredTrueThatTheRuntimeProvides() {
    PluginConfig plugin =
        plugin("{'type':'p','capabilities':{'ips':true,'mac':false,'portMappings':true}}");

    JsonNode request = plugin.requestConfig("db", CniVersion.V1_0_0, ARGS, null);

    assertThat(request.get("runtimeConfig"))
        .isEqualTo(ConfigValidatorTest.object("{'ips':['10.200.0.5/24']}"));
    assertThat(request.has("capabilities")).isFalse();
  }

  @Test
  void runtimeConfigIsLeftOutWhenNothingMatches() {
    PluginConfig plugin = plugin("{'type':'p','capabilities':{'portMappings':true}}");

    assertThat(plugin.requestConfig("db", CniVersion.V1_0_0, ARGS, null).has("runtimeConfig"))
        .isFalse();
    assertThat(plugin.requestConfig("db", CniVersion.V1_0_0, Map.of(), null).has("runtimeConfig"))
        .isFalse();
  }

  @Test
  void injectsListNameAndSelectedVersionOverThePluginsOwnAndKeepsEverythingElse() {
    PluginConfig plugin =
        NetworkConfigList.fromJson(
                ConfigValidatorTest.object(
                    "{'name':'db','cniVersion':'1.1.0','cniVersions':['1.0.0','1.1.0'],"
                        + "'plugins':[{'cniVersion':'1.1.0','type':'p','name':'db','z':{'k':[1]},"
                        + "'a':null}]}"))
            .plugins()
            .get(0);

    byte[] stdin = plugin.requestBytes("db", CniVersion.V1_0_0, ARGS, NullNode.instance);

    assertThat(new String(stdin, UTF_8))
        .isEqualTo(
            "{\"cniVersion\":\"1.0.0\",\"name\":\"db\",\"type\":\"p\",\"z\":{\"k\":[1]},\"a\":null}");
  }

  @Test
  void prevResultIsCopiedAndLastAfterRuntimeConfig() {
    PluginConfig plugin = plugin("{'capabilities':{'mac':true},'type':'tuning','sysctl':{}}");
    JsonNode prev = ConfigValidatorTest.object("{'cniVersion':'1.0.0','ips':[]}");

    JsonNode request = plugin.requestConfig("db", CniVersion.V1_0_0, ARGS, prev);
    ((com.fasterxml.jackson.databind.node.ObjectNode) prev).put("changed", true);

    assertThat(request.get("prevResult").has("changed")).isFalse();
    assertThat(request.fieldNames())
        .toIterable()
        .containsExactly("cniVersion", "name", "type", "sysctl", "runtimeConfig", "prevResult");
  }

  @Test
  void requestBytesWriteNumbersByValueAsLibcnisGoRoundTripDoes() {
    byte[] conflist =
        "{\"name\":\"db\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"p\",\"mtu\":1500.0,\"r\":1.50}]}"
            .getBytes(UTF_8);
    PluginConfig plugin = NetworkConfigList.parse(conflist).plugins().get(0);

    assertThat(new String(plugin.requestBytes("db", CniVersion.V1_0_0, Map.of(), null), UTF_8))
        .isEqualTo(
            "{\"cniVersion\":\"1.0.0\",\"name\":\"db\",\"type\":\"p\",\"mtu\":1500,\"r\":1.5}");
  }

  @Test
  void gcRequestListsValidAttachmentsUnderBothKeysAndHasNoRuntimeConfig() {
    PluginConfig plugin = plugin("{'type':'bridge','capabilities':{'mac':true}}");

    JsonNode request =
        plugin.gcRequestConfig("db", CniVersion.V1_1_0, List.of(new GcAttachment("c1", "eth0")));

    JsonNode expected =
        ConfigValidatorTest.object(
            "{'cniVersion':'1.1.0','name':'db','type':'bridge',"
                + "'cni.dev/valid-attachments':[{'containerID':'c1','ifname':'eth0'}],"
                + "'cni.dev/attachments':[{'containerID':'c1','ifname':'eth0'}]}");
    assertThat(request).isEqualTo(expected);
  }

  @Test
  void statusRequestHasOnlyNameAndVersionInjected() {
    PluginConfig plugin = plugin("{'type':'bridge','capabilities':{'mac':true},'bridge':'b0'}");

    assertThat(plugin.networkRequestConfig("db", CniVersion.V1_1_0))
        .isEqualTo(
            ConfigValidatorTest.object(
                "{'cniVersion':'1.1.0','name':'db','type':'bridge','bridge':'b0'}"));
  }

  @Test
  void typedViewReadsTypeIpamAndCapabilitiesInDeclaredOrder() {
    PluginConfig plugin =
        plugin("{'type':'bridge','ipam':{'type':'dhcp'},'capabilities':{'z':true,'a':false}}");

    assertThat(plugin.type()).isEqualTo("bridge");
    assertThat(plugin.ipamType()).contains("dhcp");
    assertThat(plugin.capabilities()).containsExactly(Map.entry("z", true), Map.entry("a", false));
  }

  private static PluginConfig plugin(String json) {
    return NetworkConfigList.fromJson(
            ConfigValidatorTest.object(
                "{'name':'db','cniVersion':'1.1.0','plugins':[" + json + "]}"))
        .plugins()
        .get(0);
  }
}
