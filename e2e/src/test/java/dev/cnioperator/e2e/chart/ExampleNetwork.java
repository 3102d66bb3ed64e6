package dev.cnioperator.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.operator.slices.SliceOfNode;
import dev.cnioperator.operator.template.NodeTemplate;
import dev.cnioperator.operator.template.NodeValues;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A CniNetwork of {@code examples/}, read as YAML, and the CNI configuration list its spec stands
 * for: the same fields a runtime reads (cniVersion, cniVersions, name, disableCheck, disableGC,
 * plugins), so the example can be run by an independent CNI runtime.
 */
record ExampleNetwork(Path file, JsonNode resource) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every example of {@code examples/}, by file name. */
  static List<Path> files() {
    try (Stream<Path> files = Files.list(ToolPaths.repoRoot().resolve("examples"))) {
      return files.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list examples/", e);
    }
  }

  static ExampleNetwork read(Path file) {
    try {
      return new ExampleNetwork(file, new YAMLMapper().readTree(file.toFile()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  String resourceName() {
    return resource.path("metadata").path("name").asText();
  }

  JsonNode spec() {
    return resource.path("spec");
  }

  /** spec.networkName, which defaults to metadata.name. */
  String networkName() {
    return spec().path("networkName").asText(resourceName());
  }

  /**
   * The node the examples are run for: pod CIDR 10.200.0.0/24 and, for macvlan's master, an uplink
   * named uplink0 (the interface ExamplesIT makes).
   */
  static final NodeValues NODE =
      new NodeValues(
          "example-node",
          List.of("10.200.0.0/24"),
          List.of("10.200.255.1"),
          Map.of("cnioperator.dev/macvlan-master", "uplink0"),
          Map.of());

  /**
   * The configuration list the spec stands for, rendered for {@link #NODE}, whose slice of
   * spec.nodeSlices (when the example declares them) is the first.
   */
  ObjectNode conflist() {
    NodeTemplate.Result rendered =
        NodeTemplate.render(
            template(), NODE, SliceOfNode.sample(asCniNetwork().getSpec().getNodeSlices()));
    if (rendered instanceof NodeTemplate.Result.Rendered r) {
      return r.conflist();
    }
    throw new IllegalStateException(file + " needs a value the example node lacks: " + rendered);
  }

  /** The example as the operator reads it. */
  CniNetwork asCniNetwork() {
    try {
      return JSON.treeToValue(resource, CniNetwork.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + " as a CniNetwork", e);
    }
  }

  /** The configuration list as the spec declares it, placeholders and all. */
  ObjectNode template() {
    ObjectNode list = JSON.createObjectNode();
    list.put("cniVersion", spec().path("cniVersion").asText("1.0.0"));
    if (spec().has("cniVersions")) {
      list.set("cniVersions", spec().get("cniVersions").deepCopy());
    }
    list.put("name", networkName());
    for (String flag : new String[] {"disableCheck", "disableGC"}) {
      if (spec().path(flag).asBoolean(false)) {
        list.put(flag, true);
      }
    }
    list.set("plugins", spec().path("plugins").deepCopy());
    return list;
  }

  /**
   * The configuration list with every host-local {@code ipam.dataDir} moved to {@code ipamDataDir},
   * so a test's reservations stay out of the host's {@code /var/lib/cni/networks}.
   */
  ObjectNode conflistWithIpamDataDir(Path ipamDataDir) {
    ObjectNode list = conflist();
    for (JsonNode plugin : list.get("plugins")) {
      if (plugin.path("ipam").path("type").asText().equals("host-local")) {
        ((ObjectNode) plugin.get("ipam")).put("dataDir", ipamDataDir.toString());
      }
    }
    return list;
  }
}
