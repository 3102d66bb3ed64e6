package dev.cnioperator.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.cni.config.ConfigValidator;
import dev.cnioperator.cni.config.NetworkConfigList;
import dev.cnioperator.operator.network.NetworkRenderer;
import dev.cnioperator.operator.network.Rendering;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each CniNetwork of {@code examples/} is a valid CNI configuration list by this project's own
 * validator (what the operator checks before it writes anything to a node), and stays in the
 * address range this project's tests and examples own.
 */
class ExamplesTest {

  static List<Path> examples() {
    return ExampleNetwork.files();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleIsAValidConfigurationList(Path file) {
    ExampleNetwork example = ExampleNetwork.read(file);

    assertThat(example.resource().path("kind").asText()).isEqualTo("CniNetwork");
    assertThat(ConfigValidator.validate(example.conflist())).isEmpty();
    NetworkConfigList list = NetworkConfigList.fromJson(example.conflist());
    assertThat(list.name()).isEqualTo(example.networkName());
    assertThat(list.plugins()).isNotEmpty();
  }

  /**
   * The operator accepts it as it is: placeholders, spec.nodeSlices and the rest, checked as the
   * operator checks them before anything reaches a node.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleIsAcceptedByTheOperator(Path file) {
    CniNetwork network = ExampleNetwork.read(file).asCniNetwork();

    Rendering rendering = new NetworkRenderer().render(network);

    assertThat(rendering)
        .as(rendering instanceof Rendering.Refused r ? r.message() : "")
        .isInstanceOf(Rendering.Accepted.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleAddressesAreIn10dot200(Path file) {
    List<String> addresses = new ArrayList<>();
    collectAddresses(ExampleNetwork.read(file).conflist().path("plugins"), addresses);

    assertThat(addresses).isNotEmpty().allMatch(a -> a.startsWith("10.200."));
  }

  /** Every subnet, rangeStart, rangeEnd and gateway anywhere below {@code node}. */
  private static void collectAddresses(JsonNode node, List<String> into) {
    for (var field : node.properties()) {
      if (List.of("subnet", "rangeStart", "rangeEnd", "gateway").contains(field.getKey())) {
        into.add(field.getValue().asText());
      }
    }
    node.forEach(child -> collectAddresses(child, into));
  }
}
