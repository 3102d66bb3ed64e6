package dev.cnioperator.agent.it;

import dev.cnioperator.api.v1alpha1.CniNode;
import dev.cnioperator.api.v1alpha1.CniNodeSpec;
import dev.cnioperator.api.v1alpha1.NodeNetwork;
import dev.cnioperator.api.v1alpha1.NodePlugin;
import dev.cnioperator.cni.io.Sha256;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Writes CniNode specs as the operator would, for the agent under test to follow. */
final class CniNodes {
  private static volatile boolean crdsApplied;
  final LocalControlPlane controlPlane;
  final KubernetesClient client;

  CniNodes(LocalControlPlane controlPlane) {
    this.controlPlane = controlPlane;
    this.client = controlPlane.client();
    applyCrds();
  }

  private synchronized void applyCrds() {
    if (crdsApplied) {
      return;
    }
    for (String crd : List.of("cninodes", "cniplugins", "cninetworks")) {
      String file =
          ToolPaths.repoRoot().resolve("crds/" + crd + ".cnioperator.dev.yaml").toString();
      controlPlane.kubectl("apply", "--server-side", "-f", file).orThrow("apply CRD " + crd);
    }
    controlPlane
        .kubectl(
            "wait", "--for=condition=Established", "crd/cninodes.cnioperator.dev", "--timeout=60s")
        .orThrow("CRD established");
    crdsApplied = true;
  }

  /** A bridge + host-local network in 10.200.<subnet>.0/24, of version {@code cniVersion}. */
  static NodeNetwork network(String name, int priority, int subnet, String cniVersion) {
    String content =
        "{\"cniVersion\":\""
            + cniVersion
            + "\",\"name\":\""
            + name
            + "\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"cb"
            + subnet
            + "\",\"ipam\":{\"type\":\"host-local\",\"subnet\":\"10.200."
            + subnet
            + ".0/24\"}}]}";
    return network(name, priority, content);
  }

  static NodeNetwork network(String name, int priority, String content) {
    return new NodeNetwork()
        .setName(name)
        .setFileName(String.format("%02d-%s.conflist", priority, name))
        .setContent(content)
        .setSha256(Sha256.hex(content.getBytes(StandardCharsets.UTF_8)));
  }

  /** Writes the spec as the operator does: server-side apply, no read-modify-write race. */
  CniNode put(String node, List<NodeNetwork> networks, List<NodePlugin> plugins) {
    CniNode n = new CniNode();
    n.setMetadata(new ObjectMetaBuilder().withName(node).build());
    n.setSpec(
        new CniNodeSpec()
            .setNetworks(new ArrayList<>(networks))
            .setPlugins(new ArrayList<>(plugins)));
    return client.resource(n).fieldManager("test-operator").forceConflicts().serverSideApply();
  }

  CniNode put(String node, List<NodeNetwork> networks) {
    return put(node, networks, List.of());
  }

  CniNode get(String node) {
    return client.resources(CniNode.class).withName(node).get();
  }

  void delete(String node) {
    client.resources(CniNode.class).withName(node).delete();
  }
}
