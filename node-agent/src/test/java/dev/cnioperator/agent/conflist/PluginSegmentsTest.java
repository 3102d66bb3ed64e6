package dev.cnioperator.agent.conflist;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.cnioperator.agent.conflist.PluginSegments.Owner;
import dev.cnioperator.cni.io.CniJson;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginSegmentsTest {
  private static ObjectNode list(String json) {
    return CniJson.object(json.getBytes(StandardCharsets.UTF_8)).orElseThrow();
  }

  private static JsonNode entry(String json) {
    return list(json);
  }

  @Test
  void theAgentsFileIsItsEntriesThenWhatOthersAppendedReMarshalled() {
    ObjectNode own =
        list(
            "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[{\"type\":\"bridge\",\"mtu\":1500.0}]}");
    ObjectNode file =
        list(
            "{\"name\":\"n\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"mtu\":1500,\"type\":\"bridge\"},"
                + "{\"type\":\"istio-cni\"}]}");
    PluginSegments s = PluginSegments.ofOwn(own, file).orElseThrow();
    assertThat(s.owners()).containsExactly(Owner.OWN, Owner.APPENDED);
    assertThat(s.of(Owner.APPENDED))
        .extracting(e -> e.path("type").asText())
        .containsExactly("istio-cni");
  }

  @Test
  void anOwnEntryEditedOrATopLevelFieldChangedIsNoSegmentsButDrift() {
    ObjectNode own = list("{\"name\":\"n\",\"plugins\":[{\"type\":\"bridge\"}]}");
    assertThat(
            PluginSegments.ofOwn(
                own, list("{\"name\":\"n\",\"plugins\":[{\"type\":\"macvlan\"}]}")))
        .isEmpty();
    assertThat(
            PluginSegments.ofOwn(
                own, list("{\"name\":\"m\",\"plugins\":[{\"type\":\"bridge\"},{\"type\":\"x\"}]}")))
        .isEmpty();
  }

  @Test
  void inAnotherProductsFileTheDeclaredEntriesAreRecordedOnesAndDeclaredTypesAfterItsFirst() {
    ObjectNode file =
        list(
            "{\"name\":\"cbr0\",\"plugins\":[{\"type\":\"tuning\"},{\"type\":\"portmap\"},"
                + "{\"type\":\"tuning\",\"mtu\":1400},{\"type\":\"bandwidth\",\"old\":true}]}");
    PluginSegments s =
        PluginSegments.ofTarget(
            file, List.of(entry("{\"type\":\"bandwidth\",\"old\":true}")), Set.of("tuning"));
    // The product's first entry is its own even when it is of a declared type.
    assertThat(s.owners())
        .containsExactly(Owner.PRODUCT, Owner.PRODUCT, Owner.DECLARED, Owner.DECLARED);
    assertThat(s.without(Owner.DECLARED).get("plugins").findValuesAsText("type"))
        .containsExactly("tuning", "portmap");
    // The list it was made from is left as it was.
    assertThat(file.get("plugins")).hasSize(4);
  }
}
