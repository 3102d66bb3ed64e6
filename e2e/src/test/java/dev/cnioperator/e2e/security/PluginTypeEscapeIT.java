package dev.cnioperator.e2e.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.e2e.ProcessOptions;
import dev.cnioperator.e2e.SandboxNode;
import dev.cnioperator.e2e.faults.FaultProduct;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.TestNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A CniNetwork whose plugin {@code type} or {@code ipam.type} could leave the bin dir (relative and
 * absolute paths, {@code ..}, backslashes, NUL, Unicode lookalikes of dots and slashes) is refused
 * by the API server with the field named, and never reaches a CniNode or a node's conf dir.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PluginTypeEscapeIT {
  /** YAML double-quoted scalars, escapes included. */
  private static final List<String> ESCAPES =
      List.of(
          "../../bin/sh",
          "/bin/sh",
          "..",
          "..\\\\..\\\\bin\\\\sh",
          "sh\\0",
          "bridge\\0/../../bin/sh",
          "\\u2024\\u2024/sh",
          "\\uFF0E\\uFF0E\\uFF0Fsh",
          "%2e%2e%2fsh",
          "sh/",
          " sh");

  private FaultProduct fault;
  private SandboxNode node;

  @BeforeAll
  void installTheProduct() {
    fault = FaultProduct.install("esc");
    fault.startOperator(ProcessOptions.DEFAULT);
    node = fault.product().startAgent(fault.createNode("esc"));
  }

  @AfterAll
  void removeIt() {
    if (fault != null) {
      fault.close();
    }
  }

  @Test
  void anEscapingTypeIsRefusedAtTheDoorNamingTheFieldAndReachesNoNode() throws IOException {
    List<String> names = new ArrayList<>();
    int refused = 0;
    for (String type : ESCAPES) {
      for (String field : List.of("type", "ipam.type")) {
        String name = TestNames.unique("esc");
        names.add(name);
        CommandResult result = fault.applyRefused(network(name, field, type));
        assertThat(result.ok()).as("%s: \"%s\" was accepted", field, type).isFalse();
        assertThat(result.stderr())
            .as("%s: \"%s\"", field, type)
            .contains("spec.plugins[0]." + field);
        refused++;
      }
    }

    for (String name : names) {
      assertThat(fault.controlPlane().client().resources(CniNetwork.class).withName(name).get())
          .isNull();
    }
    List<String> onNode =
        fault.cniNode(node.name()).map(n -> n.getSpec().getNetworks()).orElse(List.of()).stream()
            .map(NodeNetwork::getName)
            .toList();
    assertThat(onNode).doesNotContainAnyElementsOf(names);
    List<String> files = confFiles();
    assertThat(files).noneMatch(f -> names.stream().anyMatch(f::contains));
    System.out.printf(
        "security=plugin-type-escape attempts=%d refused-at-door=%d reached-a-cninode=0"
            + " reached-a-conf-dir=0%n",
        names.size(), refused);
  }

  private String network(String name, String field, String type) {
    return fault.network(
        name,
        field.equals("type")
            ? "- type: \"" + type + "\"\n  ipam: {type: host-local, subnet: 10.230.250.0/24}"
            : "- type: bridge\n  ipam: {type: \"" + type + "\", subnet: 10.230.250.0/24}");
  }

  private List<String> confFiles() throws IOException {
    if (!Files.isDirectory(node.confDir())) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(node.confDir())) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }
}
