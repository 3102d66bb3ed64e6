package dev.cnioperator.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.testkit.CommandResult;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invalid CniNetworks applied with kubectl: each is refused at the door (schema or CEL) with a
 * message naming the field, or accepted by the API server and refused by the operator with
 * Accepted=False; either way no CniNode ever lists it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InvalidCniNetworksIT {

  private ClusterFixture cluster;
  private String node;

  @BeforeAll
  void setUp() {
    cluster = new ClusterFixture();
    node = cluster.node("inval");
  }

  @AfterAll
  void tearDown() {
    cluster.close();
  }

  /** Refused by the API server: kubectl apply fails with {@code message} in its stderr. */
  private static Arguments door(String name, String spec, String message) {
    return doorMatching(name, spec, Pattern.quote(message));
  }

  /**
   * Refused by the API server with a message matching {@code regex}: where API server releases word
   * the same refusal differently (a CEL rule's "Invalid value" quotes {@code "object"} up to 1.36,
   * nothing from 1.37), the field and the rule's own message are what a user reads on all of them.
   */
  private static Arguments doorMatching(String name, String spec, String regex) {
    return Arguments.of(name, spec, null, regex);
  }

  /** Accepted by the API server, refused by the operator with this reason and message part. */
  private static Arguments operator(String name, String spec, String reason, String message) {
    return Arguments.of(name, spec, reason, message);
  }

  static Stream<Arguments> invalidNetworks() {
    String bridge = "  - type: bridge\n";
    return Stream.of(
        door(
            "bad-name",
            "  networkName: \"-db\"\n  plugins:\n" + bridge,
            "spec.networkName: Invalid value: \"-db\""),
        door(
            "slash-name",
            "  networkName: a/b\n  plugins:\n" + bridge,
            "spec.networkName: Invalid value: \"a/b\""),
        door(
            "traversal",
            "  plugins:\n  - type: ../../bin/sh\n",
            "spec.plugins[0].type: Invalid value: \"../../bin/sh\""),
        door(
            "ipam-backslash",
            "  plugins:\n  - type: bridge\n    ipam: {type: 'a\\b'}\n",
            "spec.plugins[0].ipam.type: Invalid value: \"a\\\\b\""),
        door(
            "runtime-config",
            "  plugins:\n  - type: portmap\n    runtimeConfig: {portMappings: []}\n",
            "spec.plugins[0].runtimeConfig: Forbidden: runtimeConfig is reserved"),
        door(
            "args",
            "  plugins:\n  - type: bridge\n    args: {cni: {ips: [10.200.0.9]}}\n",
            "spec.plugins[0].args: Forbidden: args is reserved"),
        door(
            "unknown-version",
            "  cniVersion: \"0.5.0\"\n  plugins:\n" + bridge,
            "spec.cniVersion: Unsupported value: \"0.5.0\""),
        doorMatching(
            "versions-without-version",
            "  cniVersion: \"1.0.0\"\n  cniVersions: [\"1.1.0\"]\n  plugins:\n" + bridge,
            "spec\\.cniVersions: Invalid value: .*spec\\.cniVersions must include spec\\.cniVersion"),
        doorMatching(
            "append-multus",
            "  appendTo: cbr0\n  attachment: {multus: {namespaces: [shop]}}\n  plugins:\n  - type: bandwidth\n",
            "spec\\.appendTo: Invalid value: .*"
                + Pattern.quote(
                    "spec.appendTo appends plugins to another product's network in the runtime's"
                        + " directory: it cannot be combined with spec.attachment or"
                        + " spec.networkName")),
        doorMatching(
            "append-as-alone",
            "  appendAs: DropIn\n  plugins:\n  - type: bandwidth\n",
            "spec\\.appendAs: Invalid value: .*"
                + Pattern.quote(
                    "spec.appendAs says how spec.appendTo's entries are held: it needs"
                        + " spec.appendTo")),
        doorMatching(
            "published.under.a.dotted.name",
            "  scheduling: {publishDevices: true}\n  plugins:\n  - type: macvlan\n",
            "spec\\.scheduling\\.publishDevices: Invalid value: .*"
                + Pattern.quote(
                    "spec.scheduling.publishDevices names each node's device after metadata.name,"
                        + " which must then be a DNS label")),
        door(
            "empty-plugins",
            "  plugins: []\n",
            "spec.plugins: Invalid value: 0: spec.plugins in body should have at least 1 items"),
        door(
            "missing-type",
            "  plugins:\n  - bridge: br0\n",
            "spec.plugins[0].type: Required value"),
        door(
            "dns-not-a-list",
            "  plugins:\n  - type: bridge\n    dns: {nameservers: 10.200.0.53}\n",
            "spec.plugins[0].dns.nameservers: Invalid value: \"string\""),
        door(
            "priority-100",
            "  priority: 100\n  plugins:\n" + bridge,
            "spec.priority: Invalid value: 100: spec.priority in body should be less than or equal to 99"),
        door(
            "capability-not-bool",
            "  plugins:\n  - type: portmap\n    capabilities: {portMappings: \"yes\"}\n",
            "spec.plugins[0].capabilities.portMappings: Invalid value: \"string\""),
        operator(
            "cni-dev-key",
            "  plugins:\n  - type: bridge\n    cni.dev/ips: [10.200.0.9]\n",
            "InvalidConfiguration",
            "spec.plugins[0][\"cni.dev/ips\"]: \"cni.dev/ips\" is reserved"),
        operator(
            "dns-not-an-ip",
            "  plugins:\n  - type: bridge\n    dns: {nameservers: [ns1.example]}\n",
            "InvalidConfiguration",
            "spec.plugins[0].dns.nameservers[0]"),
        operator(
            "gc-needs-1.1",
            "  cniVersion: \"1.0.0\"\n  disableGC: true\n  plugins:\n" + bridge,
            "InvalidConfiguration",
            "spec.disableGC"),
        operator(
            "append-disable-gc",
            "  appendTo: cbr0\n  cniVersion: \"1.1.0\"\n  disableGC: true\n  plugins:\n  - type: bandwidth\n",
            "InvalidConfiguration",
            "spec.disableGC: disableGC is a field of a whole configuration list"),
        operator(
            "check-needs-0.4",
            "  cniVersion: \"0.3.1\"\n  disableCheck: true\n  plugins:\n" + bridge,
            "InvalidConfiguration",
            "spec.disableCheck"),
        operator(
            "plugin-version-mismatch",
            "  cniVersion: \"1.0.0\"\n  plugins:\n  - type: bridge\n    cniVersion: \"0.4.0\"\n",
            "InvalidConfiguration",
            "spec.plugins[0].cniVersion"),
        operator(
            "selector-operator",
            "  nodeSelector: {matchExpressions: [{key: zone, operator: Near, values: [a]}]}\n  plugins:\n"
                + bridge,
            "InvalidNodeSelector",
            "spec.nodeSelector.matchExpressions[0].operator: operator \"Near\" is not one of"),
        operator(
            "selector-in-without-values",
            "  nodeSelector: {matchExpressions: [{key: zone, operator: In}]}\n  plugins:\n"
                + bridge,
            "InvalidNodeSelector",
            "spec.nodeSelector.matchExpressions[0].values: operator In needs at least one value"),
        operator(
            "selector-bad-key",
            "  nodeSelector: {matchLabels: {\"-zone\": a}}\n  plugins:\n" + bridge,
            "InvalidNodeSelector",
            "label key \"-zone\""),
        operator(
            "slices-host-bits",
            "  nodeSlices: {subnet: 10.200.16.5/20, prefixLength: 26}\n  plugins:\n" + bridge,
            "InvalidNodeSlices",
            "spec.nodeSlices.subnet: 10.200.16.5/20 has host bits set"),
        operator(
            "slices-too-many",
            "  nodeSlices: {subnet: \"fd00:200::/48\", prefixLength: 65}\n  plugins:\n" + bridge,
            "InvalidNodeSlices",
            "spec.nodeSlices.prefixLength: 65 cuts fd00:200::/48 into 2^17 slices"),
        operator(
            "slice-undeclared",
            "  plugins:\n  - type: bridge\n    ipam: {type: host-local, subnet: \"$(node.slice)\"}\n",
            "InvalidConfiguration",
            "spec.plugins[0].ipam.subnet: $(node.slice) is the node's slice of spec.nodeSlices"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidNetworks")
  void isRefusedAndReachesNoNode(String base, String spec, String reason, String message) {
    String name = base + "-" + cluster.pool;
    // Each spec selects this test's pool unless it declares its own selector.
    String selected =
        spec.contains("nodeSelector")
            ? spec
            : "  nodeSelector: {matchLabels: {\""
                + ClusterFixture.POOL
                + "\": "
                + cluster.pool
                + "}}\n"
                + spec;

    CommandResult applied = cluster.apply(name, selected);

    if (reason == null) {
      assertThat(applied.exitCode()).as("kubectl apply should fail").isNotZero();
      assertThat(applied.stderr()).containsPattern(message);
      assertThat(cluster.network(name)).isNull();
    } else {
      assertThat(applied.exitCode()).as(applied.stderr()).isZero();
      Condition accepted = cluster.awaitCondition(name, "Accepted", "False");
      assertThat(accepted.getReason()).isEqualTo(reason);
      assertThat(accepted.getMessage())
          .contains(message)
          .contains("nothing is written to any node");
      assertThat(cluster.network(name).getStatus().getRendered()).isNull();
      assertThat(cluster.condition(name, "Ready"))
          .get()
          .extracting(Condition::getReason)
          .isEqualTo("NotAccepted");
    }
    assertThat(cluster.networksOn(node)).doesNotContain(name);
    assertThat(cluster.client.resources(CniNode.class).list().getItems())
        .allSatisfy(
            n -> assertThat(cluster.networksOn(n.getMetadata().getName())).doesNotContain(name));
  }

  @org.junit.jupiter.api.Test
  void aNetworkNestedDeeperThanJacksonsDefaultIsRefusedAndTheOperatorCarriesOn() {
    String deep = "deep-" + cluster.pool;
    int depth = 1500;
    String nested = "[".repeat(depth) + "]".repeat(depth);
    CommandResult applied =
        cluster.apply(
            deep,
            "  nodeSelector: {matchLabels: {\""
                + ClusterFixture.POOL
                + "\": "
                + cluster.pool
                + "}}\n"
                + "  plugins:\n  - {type: bridge, x: "
                + nested
                + "}\n");
    assertThat(applied.exitCode()).as(applied.stderr()).isZero();

    Condition accepted = cluster.awaitCondition(deep, "Accepted", "False");
    assertThat(accepted.getReason()).isEqualTo("InvalidConfiguration");
    assertThat(accepted.getMessage()).contains("spec.plugins[0].x").contains("levels");

    String after = "after-deep-" + cluster.pool;
    cluster
        .apply(
            after,
            "  nodeSelector: {matchLabels: {\""
                + ClusterFixture.POOL
                + "\": "
                + cluster.pool
                + "}}\n  plugins:\n  - type: bridge\n")
        .orThrow("apply");
    cluster.awaitCondition(after, "Accepted", "True");
    org.awaitility.Awaitility.await()
        .atMost(ClusterFixture.WAIT)
        .until(() -> cluster.networksOn(node).contains(after));
    assertThat(cluster.networksOn(node)).doesNotContain(deep);
  }
}
