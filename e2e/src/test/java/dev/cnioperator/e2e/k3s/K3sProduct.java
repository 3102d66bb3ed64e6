package dev.cnioperator.e2e.k3s;

import dev.cnioperator.e2e.Helm;
import dev.cnioperator.e2e.LocalProduct;
import dev.cnioperator.testkit.CommandResult;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The product installed on a k3s cluster as a user installs it: {@code helm install} of the chart
 * with the k3s host-path profile and the images under test, waiting until the operator Deployment
 * and the agent DaemonSet run from those images.
 */
final class K3sProduct {
  static final String NAMESPACE = LocalProduct.NAMESPACE;
  static final String RELEASE = LocalProduct.RELEASE;

  private final K3sCluster cluster;
  private final Path workDir;
  private final Helm helm;

  private K3sProduct(K3sCluster cluster, Path workDir) {
    this.cluster = cluster;
    this.workDir = workDir;
    this.helm =
        Helm.inHome(workDir.resolve("helm"))
            .withKubeconfig(cluster.kubeconfigFile())
            .withLimit(Duration.ofMinutes(6));
  }

  static K3sProduct install(K3sCluster cluster, K3sImages images, Path workDir) {
    K3sProduct product = new K3sProduct(cluster, workDir);
    List<String> args =
        new ArrayList<>(
            List.of(
                "install",
                RELEASE,
                Helm.chartDir().toString(),
                "--namespace",
                NAMESPACE,
                "--create-namespace",
                "--set",
                "agent.hostPaths.profile=k3s",
                "--wait",
                "--timeout",
                "5m"));
    args.addAll(images.operator().helmValues("operator.image", images.pullPolicy()));
    args.addAll(images.agent().helmValues("agent.image", images.pullPolicy()));
    product.helm(args).orThrow("helm install (the pods' events: kubectl get events -A)");
    return product;
  }

  /** Runs the real helm against the k3s cluster, with its state in the test's directory. */
  CommandResult helm(List<String> args) {
    return helm.run(args);
  }

  /** What the release installed, as YAML. */
  String manifest() {
    return helm(List.of("get", "manifest", RELEASE, "--namespace", NAMESPACE))
        .orThrow("helm get manifest")
        .stdout();
  }

  /** The running agent Pod of the DaemonSet on {@code node}. */
  Pod agentPod(String node) {
    return cluster
        .client()
        .pods()
        .inNamespace(NAMESPACE)
        .withLabel("app.kubernetes.io/component", "agent")
        .withField("spec.nodeName", node)
        .list()
        .getItems()
        .stream()
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no agent pod on node " + node));
  }

  /** A token of the agent's ServiceAccount bound to its real Pod, as the pod's projected one is. */
  String agentToken(String node) {
    Pod pod = agentPod(node);
    return cluster
        .client()
        .serviceAccounts()
        .inNamespace(NAMESPACE)
        .withName(LocalProduct.AGENT_ACCOUNT)
        .tokenRequest(
            new TokenRequestBuilder()
                .withNewSpec()
                .withExpirationSeconds(3600L)
                .withBoundObjectRef(
                    new BoundObjectReferenceBuilder()
                        .withApiVersion("v1")
                        .withKind("Pod")
                        .withName(pod.getMetadata().getName())
                        .withUid(pod.getMetadata().getUid())
                        .build())
                .endSpec()
                .build())
        .getStatus()
        .getToken();
  }

  CommandResult uninstall() {
    return helm(
        List.of("uninstall", RELEASE, "--namespace", NAMESPACE, "--wait", "--timeout", "120s"));
  }
}
