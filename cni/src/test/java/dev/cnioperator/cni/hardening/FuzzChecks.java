package dev.cnioperator.cni.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.cnioperator.cni.CniErrorCode;
import dev.cnioperator.cni.CniVersion;
import dev.cnioperator.cni.config.CniConfigException;
import dev.cnioperator.cni.config.GcAttachment;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.cni.config.PluginConfig;
import dev.cnioperator.cni.io.Sha256;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The properties the configuration fuzz targets check on every input they get through, shared so
 * the .conflist and legacy .conf targets hold lists to the same rules.
 */
final class FuzzChecks {
  private FuzzChecks() {}

  /** A refusal is one of the two configuration codes and names at least one problem. */
  static void describesProblems(CniConfigException refused) {
    assertThat(refused.code())
        .isIn(CniErrorCode.DECODING_FAILURE.code(), CniErrorCode.INVALID_NETWORK_CONFIG.code());
    assertThat(refused.problems()).isNotEmpty();
    refused.problems().forEach(p -> assertThat(p.message()).isNotBlank());
  }

  /**
   * The executable level drops policy rules only, so it may accept what the full level refused, but
   * a refusal there is again a well-formed {@link CniConfigException}.
   */
  static void refusedAtExecutableLevelOnlyIfAtFull(Supplier<NetworkConfigList> executable) {
    try {
      rendersCanonically(executable.get());
    } catch (CniConfigException refused) {
      describesProblems(refused);
    }
  }

  /** The canonical bytes re-parse to the same list, render identically and hash as claimed. */
  static void rendersCanonically(NetworkConfigList list) {
    byte[] rendered = list.render();
    assertThat(list.sha256()).isEqualTo(Sha256.hex(rendered));
    NetworkConfigList again = NetworkConfigList.parse(rendered, "rendered.conflist");
    assertThat(again.sha256()).isEqualTo(list.sha256());
    assertThat(again.render()).isEqualTo(rendered);
  }

  /**
   * Every request a runtime derives from a valid list (ADD/CHECK/DEL with capability arguments,
   * STATUS, GC) is built without an exception: the list's shape was vouched for by the validator.
   */
  static void derivesRequests(NetworkConfigList list) {
    CniVersion version = list.selectVersion(new HashSet<>(CniVersion.SUPPORTED));
    Map<String, JsonNode> args =
        Map.of(
            "portMappings", JsonNodeFactory.instance.arrayNode(),
            "mac", JsonNodeFactory.instance.textNode("02:00:00:00:00:01"));
    for (PluginConfig plugin : list.plugins()) {
      plugin.type();
      plugin.ipamType();
      plugin.capabilities();
      plugin.requestBytes(list.name(), version, args, JsonNodeFactory.instance.objectNode());
      PluginConfig.toBytes(plugin.networkRequestConfig(list.name(), version));
      PluginConfig.toBytes(
          plugin.gcRequestConfig(list.name(), version, List.of(new GcAttachment("c1", "eth0"))));
    }
  }
}
