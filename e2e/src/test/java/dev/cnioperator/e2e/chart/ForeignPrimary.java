package dev.cnioperator.e2e.chart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cnioperator.api.v1alpha1.AppendPlacement;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;

/**
 * Another product's pod network {@code cbr0}, installed as flannel's and Calico's manifests install
 * theirs: a ConfigMap with its conflist, and a DaemonSet whose init container copies it into each
 * node's conf dir with {@code cp -f} on every start (the image is the product's agent image,
 * already on the nodes, for its coreutils); and the chain the tests declare onto it: {@code tuning}
 * (the pods' MTU) and {@code bandwidth}.
 */
final class ForeignPrimary {
  static final String FILE = "10-flannel.conflist";
  private static final ObjectMapper JSON = new ObjectMapper();

  final String namespace;
  final String conflist;

  private ForeignPrimary(String namespace, String conflist) {
    this.namespace = namespace;
    this.conflist = conflist;
  }

  /**
   * Installs it on every node, its pods' addresses from {@code podCidr} (one node's: the tests run
   * their pods on that node only).
   */
  static ForeignPrimary install(LocalControlPlane cp, ChartRelease release, String podCidr) {
    String conflist =
        ("{\"name\":\"cbr0\",\"cniVersion\":\"1.0.0\",\"plugins\":[{\"type\":\"bridge\","
                + "\"bridge\":\"cbfl0\",\"isGateway\":true,\"ipam\":{\"type\":\"host-local\","
                + "\"ranges\":[[{\"subnet\":\"%s\"}]]}},{\"type\":\"portmap\","
                + "\"capabilities\":{\"portMappings\":true}}]}")
            .formatted(podCidr);
    String namespace = TestNames.unique("foreign");
    cp.kubectl("create", "namespace", namespace).orThrow("create namespace");
    cp.kubectl("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=privileged")
        .orThrow("label namespace");
    String image = release.agentImage();
    String manifest =
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: foreign-cfg
          namespace: %1$s
        data:
          cni-conf.json: '%2$s'
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata:
          name: foreign-primary
          namespace: %1$s
        spec:
          selector:
            matchLabels: {app: foreign-primary}
          template:
            metadata:
              labels: {app: foreign-primary}
            spec:
              hostNetwork: true
              terminationGracePeriodSeconds: 0
              tolerations: [{operator: Exists, effect: NoSchedule}]
              initContainers:
                - name: install-cni
                  image: %3$s
                  command: [sh, -c, 'cp -f /etc/foreign/cni-conf.json /etc/cni/net.d/%4$s && echo copy >> /etc/cni/copies.log']
                  securityContext: {runAsUser: 0, privileged: true}
                  volumeMounts:
                    - {name: cni, mountPath: /etc/cni/net.d}
                    - {name: log, mountPath: /etc/cni}
                    - {name: cfg, mountPath: /etc/foreign}
              containers:
                - name: primary
                  image: %3$s
                  command: [sleep, infinity]
                  securityContext: {runAsUser: 0}
              volumes:
                - {name: cni, hostPath: {path: /etc/cni/net.d}}
                - {name: log, hostPath: {path: /etc/cni}}
                - {name: cfg, configMap: {name: foreign-cfg}}
        """
            .formatted(namespace, conflist, image, FILE);
    cp.kubectlWithInput(manifest, "apply", "-f", "-").orThrow("apply the foreign primary");
    return new ForeignPrimary(namespace, conflist);
  }

  /** How often its init container copied its file onto {@code node}. */
  static long copies(KubeletNode node) throws IOException {
    var log = node.hostPath("/etc/cni/copies.log");
    return Files.exists(log) ? Files.readAllLines(log).size() : 0;
  }

  /** The plugin types in its file on {@code node}. */
  static List<String> types(KubeletNode node) {
    return NodePods.pluginTypes(node, FILE);
  }

  /** A CniNetwork {@code name} appending tuning (the pods' MTU) and bandwidth to cbr0. */
  static String chain(String name, int mtu) {
    return chain(name, mtu, null);
  }

  /**
   * As {@link #chain(String, int)}, held on the nodes as {@code appendAs} says ({@code
   * spec.appendAs}; null leaves the field out, which is InPlace).
   */
  static String chain(String name, int mtu, AppendPlacement appendAs) {
    return """
        apiVersion: cnioperator.dev/v1alpha1
        kind: CniNetwork
        metadata:
          name: %s
        spec:
          appendTo: cbr0%s
          check: {intervalSeconds: 5}
          plugins:
            - type: tuning
              mtu: %d
            - type: bandwidth
              ingressRate: 8000000
              ingressBurst: 65536
        """
        .formatted(name, appendAs == null ? "" : "\n  appendAs: " + appendAs, mtu);
  }

  /**
   * What the declared chain (with MTU 1400) failed to do for {@code pod}, or empty when it did
   * both: tuning set the pod's MTU, bandwidth put its token bucket on the host's end of its veth.
   */
  static Optional<String> missingChain(KubeletNode node, Pod pod) throws IOException {
    String name = pod.getMetadata().getName();
    String link = NodePods.inPodNetwork(node, pod, "ip", "-o", "link", "show", "eth0").stdout();
    if (!link.contains("mtu 1400")) {
      return Optional.of(name + ": eth0 without tuning's MTU 1400: " + link.strip());
    }
    JsonNode cached = null;
    for (var f : Files.list(node.hostPath("/var/lib/cni/results")).toList()) {
      if (f.getFileName().toString().startsWith("cbr0-" + NodePods.sandboxId(node, pod))) {
        cached = JSON.readTree(Files.readString(f));
      }
    }
    if (cached == null) {
      return Optional.of(name + ": no cached result of libcni's for its sandbox");
    }
    String hostVeth = null;
    for (JsonNode i : cached.at("/result/interfaces")) {
      if ((!i.has("sandbox") || i.get("sandbox").asText().isEmpty())
          && !i.get("name").asText().equals("cbfl0")) {
        hostVeth = i.get("name").asText();
      }
    }
    if (hostVeth == null) {
      return Optional.of(name + ": no host end of its veth in " + cached);
    }
    String qdisc = node.exec("tc", "qdisc", "show", "dev", hostVeth).orThrow("tc").stdout();
    return qdisc.contains("tbf")
        ? Optional.empty()
        : Optional.of(name + ": no bandwidth token bucket on " + hostVeth + ": " + qdisc.strip());
  }
}
