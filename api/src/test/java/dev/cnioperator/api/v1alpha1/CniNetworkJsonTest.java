package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Java types read and write the resources as kubectl users write them. */
class CniNetworkJsonTest {

  private static CniNetwork example() throws IOException {
    try (InputStream in = CniNetworkJsonTest.class.getResourceAsStream("/examples/dbnet.yaml")) {
      return Serialization.unmarshal(in, CniNetwork.class);
    }
  }

  @Test
  void pluginObjectsKeepEveryKeyInOrder() throws IOException {
    List<ObjectNode> plugins = example().getSpec().getPlugins();

    assertThat(plugins).hasSize(2);
    assertThat(plugins.get(0).fieldNames())
        .toIterable()
        .containsExactly("type", "bridge", "isGateway", "ipMasq", "ipam");
    assertThat(plugins.get(0).at("/ipam/ranges/0/0/subnet").asText()).isEqualTo("10.200.1.0/24");
    assertThat(plugins.get(1).at("/capabilities/portMappings").asBoolean()).isTrue();
  }

  @Test
  void cniVersionIsWrittenAsTheSpecText() throws IOException {
    CniNetwork network = example();

    assertThat(network.getSpec().getCniVersion()).isEqualTo(SpecVersion.V1_0_0);
    assertThat(Serialization.asJson(network.getSpec())).contains("\"cniVersion\":\"1.0.0\"");
  }

  @Test
  void networkNameDefaultsToTheResourceName() throws IOException {
    CniNetwork network = example();
    assertThat(network.networkName()).isEqualTo("dbnet");

    network.getSpec().setNetworkName("other");
    assertThat(network.networkName()).isEqualTo("other");
  }

  @Test
  void unsetFieldsAreLeftOutSoServerSideApplyClaimsOnlyWhatIsSet() {
    CniNodeSpec spec = new CniNodeSpec().setNetworks(List.of(new NodeNetwork().setName("dbnet")));

    assertThat(Serialization.asJson(spec)).isEqualTo("{\"networks\":[{\"name\":\"dbnet\"}]}");
  }
}
