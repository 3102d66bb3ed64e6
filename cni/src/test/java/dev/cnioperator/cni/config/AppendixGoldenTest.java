package dev.cnioperator.cni.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.cni.CniVersion;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Golden test from SPEC-1.1.0.md: the Section 1 example list, with the Appendix's attachment
 * (capability args {@code portMappings} and {@code mac}, CNI_IFNAME=eth0), must derive exactly the
 * request configurations the Appendix prints for ADD, CHECK and DEL of bridge, tuning and portmap,
 * when each plugin "returns" the result the Appendix shows for it.
 *
 * <p>Spec erratum, handled explicitly below: the Section 1 example's bridge {@code ipam} has {@code
 * "routes": [{"dst": "0.0.0.0/0"}]}, which every Appendix bridge request leaves out. Section 3 says
 * all other fields pass through unaltered, so the runtime must keep it; the expected bridge
 * requests get it back before comparing, and nothing else is changed.
 */
class AppendixGoldenTest {
  private static final String NETWORK = "dbnet";

  private final NetworkConfigList list = NetworkConfigList.parse(SpecExamples.section1Example());
  private final Map<String, JsonNode> capabilityArgs = appendixCapabilityArgs();
  private final ObjectNode bridgeResult = SpecExamples.json("appendix-add-bridge-result.json");
  // tuning changed the mac; portmap returns its prevResult unchanged, so this is the final result.
  private final ObjectNode finalResult = SpecExamples.json("appendix-add-tuning-result.json");

  @Test
  void selectsVersion110FromCniVersionAndCniVersions() {
    assertThat(VersionSelection.select(list)).isEqualTo(CniVersion.V1_1_0);
  }

  @Test
  void addDerivesTheAppendixRequestsWithEachPreviousResult() {
    List<JsonNode> results = List.of(bridgeResult, finalResult, finalResult);
    JsonNode prevResult = null;
    List<ObjectNode> actual = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      actual.add(request(i, prevResult));
      prevResult = results.get(i);
    }
    assertMatches(actual.get(0), "appendix-add-1-bridge-request.json");
    assertMatches(actual.get(1), "appendix-add-2-tuning-request.json");
    assertMatches(actual.get(2), "appendix-add-3-portmap-request.json");
  }

  @Test
  void checkDerivesTheAppendixRequestsWithTheFinalAddResult() {
    assertMatches(request(0, finalResult), "appendix-check-1-bridge-request.json");
    assertMatches(request(1, finalResult), "appendix-check-2-tuning-request.json");
    assertMatches(request(2, finalResult), "appendix-check-3-portmap-request.json");
  }

  @Test
  void delDerivesTheAppendixRequestsInReverseOrder() {
    List<String> expected =
        List.of(
            "appendix-del-1-portmap-request.json",
            "appendix-del-2-tuning-request.json",
            "appendix-del-3-bridge-request.json");
    List<PluginConfig> reversed = new ArrayList<>(list.plugins());
    java.util.Collections.reverse(reversed);
    for (int i = 0; i < 3; i++) {
      ObjectNode actual =
          reversed.get(i).requestConfig(NETWORK, CniVersion.V1_1_0, capabilityArgs, finalResult);
      assertMatches(actual, expected.get(i));
    }
  }

  @Test
  void requestBytesAreTheDerivedConfigurationInTheAppendixKeyOrder() throws IOException {
    byte[] stdin =
        list.plugins()
            .get(1)
            .requestBytes(NETWORK, CniVersion.V1_1_0, capabilityArgs, bridgeResult);
    JsonNode sent = new ObjectMapper().readTree(stdin);
    ObjectNode expected = SpecExamples.json("appendix-add-2-tuning-request.json");
    assertThat(sent).isEqualTo(expected);
    assertThat(fieldNames(sent)).containsExactlyElementsOf(fieldNames(expected));
  }

  private ObjectNode request(int plugin, JsonNode prevResult) {
    PluginConfig config = list.plugins().get(plugin);
    return config.requestConfig(NETWORK, VersionSelection.select(list), capabilityArgs, prevResult);
  }

  private static void assertMatches(ObjectNode actual, String appendixResource) {
    ObjectNode expected = SpecExamples.json(appendixResource);
    if (expected.path("type").asText().equals("bridge")) {
      restoreIpamRoutesDroppedByTheAppendix(expected);
    }
    assertThat(actual).as(appendixResource).isEqualTo(expected);
    // Top-level key order as the Appendix prints it (injected keys first, runtime keys last).
    assertThat(fieldNames(actual))
        .as(appendixResource)
        .containsExactlyElementsOf(fieldNames(expected));
  }

  private static void restoreIpamRoutesDroppedByTheAppendix(ObjectNode bridgeRequest) {
    ObjectNode ipam = (ObjectNode) bridgeRequest.get("ipam");
    assertThat(ipam.has("routes")).as("the erratum is still there").isFalse();
    ArrayNode routes = ipam.putArray("routes");
    routes.addObject().put("dst", "0.0.0.0/0");
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The capability args of the Appendix's attachment, as a runtime would produce them. */
  private static Map<String, JsonNode> appendixCapabilityArgs() {
    try {
      ObjectMapper json = new ObjectMapper();
      return Map.of(
          "portMappings",
          json.readTree("[{\"hostPort\": 8080, \"containerPort\": 80, \"protocol\": \"tcp\"}]"),
          "mac",
          json.readTree("\"00:11:22:33:44:66\""));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
