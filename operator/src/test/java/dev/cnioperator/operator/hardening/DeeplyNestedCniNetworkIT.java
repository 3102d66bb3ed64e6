package dev.cnioperator.operator.hardening;

import static org.assertj.core.api.Assertions.assertThat;

import dev.cnioperator.api.v1alpha1.CniNetwork;
import dev.cnioperator.operator.OperatorClients;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;

/**
 * A CniNetwork whose free-form plugin configuration nests deeper than the operator's JSON reader
 * (fabric8's Jackson, 1000 levels) must not stop the operator from reading every other CniNetwork:
 * either the API server refuses it at the door, or the typed client (what the operator's informer
 * uses) still lists CniNetworks.
 */
class DeeplyNestedCniNetworkIT {

  @Test
  void oneDeepNetworkDoesNotBlindTheOperatorToTheOthers() {
    LocalControlPlane cp = LocalControlPlane.shared();
    cp.kubectl("apply", "--server-side", "-f", ToolPaths.repoRoot().resolve("crds").toString())
        .orThrow("apply crds/");
    cp.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
        .orThrow("wait for the CRDs");
    String name = TestNames.unique("deep");
    int depth = 1500;
    String manifest =
        "{\"apiVersion\":\"cnioperator.dev/v1alpha1\",\"kind\":\"CniNetwork\","
            + "\"metadata\":{\"name\":\""
            + name
            + "\"},\"spec\":{\"plugins\":[{\"type\":\"bridge\",\"x\":"
            + "[".repeat(depth)
            + "]".repeat(depth)
            + "}]}}";
    try {
      CommandResult applied = cp.kubectlWithInput(manifest, "apply", "-f", "-");
      if (applied.exitCode() != 0) {
        System.out.println("event=deep-network-refused-at-door stderr=" + applied.stderr());
        return;
      }

      // The client the operator's informers use reads as deep as the API server stores.
      try (KubernetesClient operatorClient =
          OperatorClients.create(cp.client().getConfiguration())) {
        assertThat(operatorClient.resources(CniNetwork.class).list().getItems())
            .extracting(n -> n.getMetadata().getName())
            .contains(name);
      }
    } finally {
      cp.kubectl("delete", "cninetwork", name, "--ignore-not-found", "--wait=false");
    }
  }
}
