package dev.cnioperator.agent.probe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.cni.config.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProbeDiagnosisTest {
  private static final NetworkConfigList BRIDGE =
      list("{\"type\":\"bridge\",\"bridge\":\"cni0\",\"ipam\":{\"type\":\"host-local\"}}");
  private static final NetworkConfigList MACVLAN =
      list("{\"type\":\"macvlan\",\"master\":\"eth9\",\"ipam\":{\"type\":\"host-local\"}}");

  /** A node with these interfaces and addresses. */
  private static ProbeDiagnosis node(Map<String, List<String>> interfaces) {
    return new ProbeDiagnosis(name -> Optional.ofNullable(interfaces.get(name)));
  }

  private static NetworkConfigList list(String plugin) {
    String json = "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"plugins\":[" + plugin + "]}";
    return NetworkConfigList.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aBridgeHoldingAnotherAddressIsNamedWithBothAddressesAndTheFix() {
    String error =
        "ADD: CNI error 999: failed to set bridge addr: \"cni0\" already has an IP address"
            + " different from 10.232.0.1/24 [plugin=bridge verb=ADD exit=1]";

    Optional<String> advice =
        node(Map.of("cni0", List.of("10.9.0.1/24"), "eth0", List.of())).advise(BRIDGE, error);

    assertThat(advice)
        .hasValueSatisfying(
            a ->
                assertThat(a)
                    .startsWith(
                        "bridge cni0 on this node holds 10.9.0.1/24, not the network's"
                            + " gateway 10.232.0.1/24")
                    .contains("ip link delete cni0"));
  }

  @Test
  void aMissingMacvlanMasterIsNamed() {
    Optional<String> advice =
        node(Map.of("eth0", List.of("192.0.2.1/24"))).advise(MACVLAN, "ADD: Link not found");

    assertThat(advice)
        .hasValueSatisfying(
            a ->
                assertThat(a)
                    .startsWith(
                        "interface eth9 (the macvlan plugin's \"master\") does not exist on this"
                            + " node"));
  }

  @Test
  void noAdviceWhereTheCauseIsNotKnown() {
    assertThat(node(Map.of("eth9", List.of())).advise(MACVLAN, "ADD: something else")).isEmpty();
    assertThat(node(Map.of()).advise(BRIDGE, "ADD: failed to make veth pair")).isEmpty();
  }
}
