package dev.cnioperator.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CniNetworkYamlTest {

  @Test
  void pluginsAndSpecEntriesLandUnderTheSpecWithTheirNestedKeys() throws Exception {
    String yaml =
        CniNetworkYaml.named("n1")
            .priority(50)
            .matchLabel("kubernetes.io/hostname", "node-a")
            .plugin(
                "type: bridge\nbridge: br0\n"
                    + CniNetworkYaml.hostLocal("[[{subnet: 10.200.1.0/24}]]", Path.of("/x/ipam")))
            .plugin("type: tuning")
            .checkEvery(5)
            .spec("ipamCleanup: {enabled: false}")
            .yaml();

    JsonNode network = new YAMLMapper().readTree(yaml);
    assertThat(network.at("/kind").asText()).isEqualTo("CniNetwork");
    assertThat(network.at("/metadata/name").asText()).isEqualTo("n1");
    JsonNode spec = network.get("spec");
    assertThat(spec.at("/cniVersion").asText()).isEqualTo("1.0.0");
    assertThat(spec.at("/priority").asInt()).isEqualTo(50);
    assertThat(spec.at("/nodeSelector/matchLabels/kubernetes.io~1hostname").asText())
        .isEqualTo("node-a");
    assertThat(spec.at("/plugins/0/bridge").asText()).isEqualTo("br0");
    assertThat(spec.at("/plugins/0/ipam/type").asText()).isEqualTo("host-local");
    assertThat(spec.at("/plugins/0/ipam/dataDir").asText()).isEqualTo("/x/ipam");
    assertThat(spec.at("/plugins/0/ipam/ranges/0/0/subnet").asText()).isEqualTo("10.200.1.0/24");
    assertThat(spec.at("/plugins/1/type").asText()).isEqualTo("tuning");
    assertThat(spec.at("/check/intervalSeconds").asInt()).isEqualTo(5);
    assertThat(spec.at("/ipamCleanup/enabled").asBoolean(true)).isFalse();
    // ProductE2E edits the text: these lines must stay as they are.
    assertThat(yaml).contains("priority: 50\n").contains("type: bridge\n    bridge: br0\n");
  }
}
