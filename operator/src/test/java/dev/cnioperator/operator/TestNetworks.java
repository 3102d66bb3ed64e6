package dev.cnioperator.operator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.CniNetworkSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.Arrays;

/** CniNetworks built in memory for unit tests of pure decisions. */
public final class TestNetworks {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TestNetworks() {}

  /** A CniNetwork at generation 3 whose plugins are the given JSON objects. */
  public static CniNetwork network(String name, String... pluginsJson) {
    CniNetwork n = new CniNetwork();
    n.setMetadata(new ObjectMetaBuilder().withName(name).withGeneration(3L).build());
    n.setSpec(
        new CniNetworkSpec()
            .setPlugins(Arrays.stream(pluginsJson).map(TestNetworks::object).toList()));
    return n;
  }

  public static ObjectNode object(String json) {
    try {
      return (ObjectNode) JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException(json, e);
    }
  }
}
