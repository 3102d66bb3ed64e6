package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The defaults the API server fills in, as the crd-generator wrote them into the CRD, are the
 * constants of {@link CniNetworkDefaults} the operator and the agent use: one value per field.
 */
class CrdDefaultsTest {

  private static final Path CRD =
      Path.of(System.getProperty("basedir", "."))
          .toAbsolutePath()
          .resolve("target/classes/META-INF/fabric8/cninetworks.cnioperator.dev-v1.yml");

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Test
  void everyDefaultOfTheGeneratedCrdIsItsConstant() throws IOException {
    Map<String, JsonNode> expected = new LinkedHashMap<>();
    expected.put("cniVersion", NODES.textNode(CniNetworkDefaults.CNI_VERSION.text()));
    expected.put("priority", NODES.numberNode(CniNetworkDefaults.PRIORITY));
    expected.put("check.enabled", NODES.booleanNode(CniNetworkDefaults.CHECK_ENABLED));
    expected.put(
        "check.intervalSeconds", NODES.numberNode(CniNetworkDefaults.CHECK_INTERVAL_SECONDS));
    expected.put("ipamCleanup.enabled", NODES.booleanNode(CniNetworkDefaults.CLEANUP_ENABLED));
    expected.put(
        "ipamCleanup.gracePeriodSeconds",
        NODES.numberNode(CniNetworkDefaults.CLEANUP_GRACE_PERIOD_SECONDS));
    expected.put("ipamCleanup.dryRun", NODES.booleanNode(CniNetworkDefaults.CLEANUP_DRY_RUN));
    expected.put(
        "ipamCleanup.maxDeleteFraction",
        NODES.numberNode(CniNetworkDefaults.CLEANUP_MAX_DELETE_FRACTION));
    expected.put("rollout.maxNodes", NODES.textNode(CniNetworkDefaults.ROLLOUT_MAX_NODES));
    expected.put("rollout.canaryNodes", NODES.numberNode(CniNetworkDefaults.ROLLOUT_CANARY_NODES));
    expected.put("rollout.onFailure", NODES.textNode(CniNetworkDefaults.ROLLOUT_ON_FAILURE.name()));
    expected.put(
        "rollout.pauseSeconds", NODES.numberNode(CniNetworkDefaults.ROLLOUT_PAUSE_SECONDS));
    expected.put(
        "rollout.progressDeadlineSeconds",
        NODES.numberNode(CniNetworkDefaults.ROLLOUT_PROGRESS_DEADLINE_SECONDS));
    expected.put(
        "rollout.probe.enabled", NODES.booleanNode(CniNetworkDefaults.ROLLOUT_PROBE_ENABLED));

    Map<String, JsonNode> scalarDefaults = new LinkedHashMap<>();
    collect("", spec(), scalarDefaults);

    assertThat(scalarDefaults).containsExactlyInAnyOrderEntriesOf(expected);
  }

  /** Every default of a scalar field under {@code props}; an object's default "{}" is skipped. */
  private static void collect(String path, JSONSchemaProps props, Map<String, JsonNode> out) {
    if (props.getProperties() == null) {
      return;
    }
    props
        .getProperties()
        .forEach(
            (name, child) -> {
              String childPath = path.isEmpty() ? name : path + "." + name;
              JsonNode value = child.getDefault();
              if (value != null && !value.isObject()) {
                // The YAML reader may give 0.5 as a double and 60 as an int: compare as JSON.
                out.put(childPath, value.isNumber() ? number(value) : value);
              }
              collect(childPath, child, out);
            });
  }

  private static JsonNode number(JsonNode n) {
    return n.isIntegralNumber()
        ? NODES.numberNode(n.intValue())
        : NODES.numberNode(n.doubleValue());
  }

  private static JSONSchemaProps spec() throws IOException {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(CRD)) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    }
    return crd.getSpec()
        .getVersions()
        .get(0)
        .getSchema()
        .getOpenAPIV3Schema()
        .getProperties()
        .get("spec");
  }
}
