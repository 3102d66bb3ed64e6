package dev.cnioperator.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The generated CRDs install on a real API server, which applies their defaults and teaches. */
class CrdSchemaIT {

  private static final Path CRDS =
      Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent().resolve("crds");
  private static final Path EXAMPLE =
      Path.of(System.getProperty("basedir", "."), "src/test/resources/examples/dbnet.yaml");

  private static LocalControlPlane controlPlane;

  @BeforeAll
  static void installCrds() {
    controlPlane = LocalControlPlane.shared();
    controlPlane.kubectl("apply", "--server-side", "-f", CRDS.toString()).orThrow("apply CRDs");
    controlPlane
        .kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "-l", "", "--all")
        .orThrow("wait for CRDs");
  }

  @AfterAll
  static void removeExample() {
    controlPlane.kubectl("delete", "--ignore-not-found", "--wait=false", "-f", EXAMPLE.toString());
  }

  @Test
  void apiServerFillsDefaultsOfOmittedFields() {
    controlPlane.kubectl("apply", "-f", EXAMPLE.toString()).orThrow("apply example");

    CniNetwork stored = controlPlane.client().resources(CniNetwork.class).withName("dbnet").get();
    assertThat(stored.getSpec().getDisableCheck()).isNull();
    assertThat(stored.getSpec().getIpamCleanup().getMaxDeleteFraction()).isEqualTo(0.5);
    assertThat(stored.getSpec().getPlugins().get(0).at("/ipam/ranges/0/0/subnet").asText())
        .isEqualTo("10.200.1.0/24");
  }

  @Test
  void emptyCheckAndCleanupObjectsGetEveryDefault() {
    CommandResult result =
        controlPlane.kubectlWithInput(
            """
            apiVersion: cnioperator.dev/v1alpha1
            kind: CniNetwork
            metadata: {name: defaults-probe}
            spec:
              plugins: [{type: loopback}]
            """,
            "create",
            "--dry-run=server",
            "-o",
            "jsonpath={.spec.cniVersion} {.spec.priority} {.spec.check.enabled}"
                + " {.spec.check.intervalSeconds} {.spec.ipamCleanup.gracePeriodSeconds}"
                + " {.spec.ipamCleanup.dryRun}",
            "-f",
            "-");

    assertThat(result.orThrow("dry-run create").stdout()).isEqualTo("1.0.0 50 true 60 300 false");
  }

  @Test
  void schemaNamesEachBadField() {
    String refused =
        refusedAtTheDoor(
            """
              networkName: -bad
              priority: 100
              plugins:
              - type: ../../bin/sh
                ipam: {type: "a/b"}
                capabilities: {portMappings: "yes"}
            """);

    assertThat(refused)
        .contains("spec.networkName: Invalid value: \"-bad\"")
        .contains("spec.priority: Invalid value: 100")
        .contains("spec.plugins[0].type: Invalid value: \"../../bin/sh\"")
        .contains("spec.plugins[0].ipam.type: Invalid value: \"a/b\"")
        .contains("spec.plugins[0].capabilities.portMappings: Invalid value: \"string\"");
  }

  @Test
  void celRulesNameEachBadField() {
    String refused =
        refusedAtTheDoor(
            """
              cniVersion: "1.0.0"
              cniVersions: ["0.4.0"]
              plugins:
              - type: portmap
                runtimeConfig: {portMappings: []}
                args: {cni: {}}
            """);

    assertThat(refused)
        .contains("spec.plugins[0].runtimeConfig: Forbidden: runtimeConfig is reserved")
        .contains("spec.plugins[0].args: Forbidden: args is reserved")
        .contains("spec.cniVersions must include spec.cniVersion");
  }

  @Test
  void aMultusNetworkNeedsNamespacesAndANameThatANetworkAttachmentDefinitionCanHave() {
    String refused =
        refusedAtTheDoor(
            """
              networkName: Lan_1
              attachment: {multus: {}}
              plugins:
              - type: macvlan
            """);

    assertThat(refused)
        .contains("spec.networkName: Invalid value")
        .contains("must be a DNS subdomain")
        .contains("spec.attachment.multus: Required value")
        .contains("needs namespaces, a namespaceSelector or both");
  }

  /** Creates (dry run) a CniNetwork with this spec and returns the API server's refusal. */
  private static String refusedAtTheDoor(String specYaml) {
    CommandResult result =
        controlPlane.kubectlWithInput(
            "apiVersion: cnioperator.dev/v1alpha1\nkind: CniNetwork\nmetadata: {name: door-probe}\n"
                + "spec:\n"
                + specYaml,
            "create",
            "--dry-run=server",
            "-f",
            "-");
    assertThat(result.exitCode()).as("kubectl create exit code").isNotZero();
    return result.stderr();
  }

  @Test
  void explainTeachesThePluginFields() {
    String explained =
        controlPlane.kubectl("explain", "cninetwork.spec.plugins").orThrow("explain").stdout();

    assertThat(explained)
        .contains("The chain of plugin configuration objects")
        .contains("reserved for the runtime")
        .contains("type\t<string> -required-");
  }

  @Test
  void cniCategoryListsAllThreeKinds() {
    String resources =
        controlPlane
            .kubectl("api-resources", "--categories=cni", "-o", "name")
            .orThrow("api-resources")
            .stdout();

    assertThat(resources.lines())
        .containsExactlyInAnyOrder(
            "cninetworks.cnioperator.dev",
            "cninodes.cnioperator.dev",
            "cniplugins.cnioperator.dev");
  }

  // The generator sorts columns by JSONPath, so AGE cannot come last (see PrinterColumns).
  @Test
  void printerColumnsComeInReadingOrder() {
    controlPlane.kubectl("apply", "-f", EXAMPLE.toString()).orThrow("apply example");

    String header =
        controlPlane
            .kubectl("get", "cninet", "dbnet", "-o", "wide")
            .orThrow("get")
            .stdout()
            .lines()
            .findFirst()
            .orElseThrow();

    assertThat(header.split("\\s+"))
        .containsExactly(
            "NAME",
            "AGE",
            "CNI",
            "NETWORK",
            "NODES",
            "ROLLOUT",
            "UPDATED",
            "READY",
            "DEGRADED",
            "REASON");
  }
}
