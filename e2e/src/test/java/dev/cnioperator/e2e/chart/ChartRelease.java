package dev.cnioperator.e2e.chart;

import dev.cnioperator.e2e.AgentIdentity;
import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.authentication.BoundObjectReference;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A release of the chart installed with the real helm into the local control plane, in a namespace
 * of its own (named like the release); closing it uninstalls the release and deletes the namespace.
 */
public final class ChartRelease implements AutoCloseable {
  private final Helm helm;
  private final LocalControlPlane controlPlane;
  private final String name;
  private final String installOutput;
  private final List<String> chart;

  private ChartRelease(
      Helm helm,
      LocalControlPlane controlPlane,
      String name,
      String installOutput,
      List<String> chart) {
    this.helm = helm;
    this.controlPlane = controlPlane;
    this.name = name;
    this.installOutput = installOutput;
    this.chart = chart;
  }

  /**
   * {@code helm install} of the chart's directory without waiting (no kubelet will ever run the
   * pods), with {@code helmArgs} such as {@code --set k=v}; throws with helm's output when the
   * install fails.
   */
  static ChartRelease install(
      LocalControlPlane controlPlane, String namePrefix, String... helmArgs) {
    return installWithoutWaiting(
        controlPlane, List.of(Helm.chartDir().toString()), namePrefix, helmArgs);
  }

  /**
   * {@code helm install} of the chart {@code product} published, as a user installs it from a
   * registry, without waiting, with {@code helmArgs}; throws with helm's output when it fails.
   */
  public static ChartRelease install(
      LocalControlPlane controlPlane,
      PublishedProduct product,
      String namePrefix,
      String... helmArgs) {
    return installWithoutWaiting(controlPlane, product.helmChartArgs(), namePrefix, helmArgs);
  }

  private static ChartRelease installWithoutWaiting(
      LocalControlPlane controlPlane, List<String> chart, String namePrefix, String... helmArgs) {
    List<String> args = new ArrayList<>(List.of("--wait=false"));
    args.addAll(List.of(helmArgs));
    return install(
        controlPlane,
        Helm.provisioned(),
        chart,
        TestNames.unique(namePrefix),
        args,
        Duration.ofMinutes(2));
  }

  /**
   * The steps of docs/install.md: the release namespace created and labelled for the privileged
   * agent, then {@code helm install --wait} of the chart {@code product} published, with {@code
   * helmArgs}; throws with helm's output when the install fails or helm's wait ends after {@code
   * wait}.
   */
  static ChartRelease installAndWait(
      LocalControlPlane controlPlane,
      PublishedProduct product,
      String namePrefix,
      Duration wait,
      String... helmArgs) {
    String name = TestNames.unique(namePrefix);
    controlPlane.kubectl("create", "namespace", name).orThrow("kubectl create namespace " + name);
    controlPlane
        .kubectl("label", "namespace", name, "pod-security.kubernetes.io/enforce=privileged")
        .orThrow("kubectl label namespace " + name);
    List<String> args = new ArrayList<>(List.of("--wait"));
    args.addAll(List.of(helmArgs));
    return install(
        controlPlane,
        Helm.provisioned().withLimit(wait.plusMinutes(1)),
        product.helmChartArgs(),
        name,
        args,
        wait);
  }

  private static ChartRelease install(
      LocalControlPlane controlPlane,
      Helm provisioned,
      List<String> chart,
      String name,
      List<String> helmArgs,
      Duration timeout) {
    Helm helm = provisioned.withKubeconfig(controlPlane.kubeconfigFile());
    List<String> args = new ArrayList<>(List.of("--timeout", timeout.toSeconds() + "s"));
    args.addAll(helmArgs);
    CommandResult install = helm.install(name, name, chart, args);
    ChartRelease release = new ChartRelease(helm, controlPlane, name, install.stdout(), chart);
    if (!install.ok()) {
      release.close();
      install.orThrow("helm install " + name);
    }
    return release;
  }

  public String name() {
    return name;
  }

  public String namespace() {
    return name;
  }

  /** The image the release's agent DaemonSet runs (already on every node that runs an agent). */
  String agentImage() {
    return controlPlane
        .kubectl(
            "-n",
            name,
            "get",
            "daemonset",
            "-l",
            "app.kubernetes.io/component=agent",
            "-o",
            "jsonpath={.items[0].spec.template.spec.containers[0].image}")
        .orThrow("the agent's image")
        .stdout()
        .strip();
  }

  /** The whole log of the release's pods of {@code component} ("agent" or "operator"). */
  String log(String component) {
    return controlPlane
        .kubectl("-n", name, "logs", "-l", "app.kubernetes.io/component=" + component, "--tail=-1")
        .orThrow("the " + component + "'s log")
        .stdout();
  }

  /** What helm printed on install, the rendered NOTES.txt included. */
  String installOutput() {
    return installOutput;
  }

  String agentServiceAccount() {
    return name + "-cni-operator-agent";
  }

  String operatorServiceAccount() {
    return name + "-cni-operator-operator";
  }

  /**
   * A token of the agent's ServiceAccount as the agent's pod on {@code node} gets it: bound to that
   * pod (made here, as the DaemonSet would; no kubelet will run it).
   */
  String agentPodToken(Node node, Duration ttl) {
    Pod pod =
        controlPlane
            .client()
            .pods()
            .inNamespace(namespace())
            .resource(
                AgentIdentity.pod(node.getMetadata().getName(), agentServiceAccount())
                    .withNewMetadata()
                    .withGenerateName("agent-")
                    .endMetadata()
                    .build())
            .create();
    return agentToken(ttl, AgentIdentity.boundTo("Pod", pod.getMetadata()));
  }

  /** A token of the agent's ServiceAccount bound to the Node object itself. */
  String agentNodeToken(Node node, Duration ttl) {
    return agentToken(ttl, AgentIdentity.boundTo("Node", node.getMetadata()));
  }

  /** A token of the operator's ServiceAccount. */
  String operatorToken(Duration ttl) {
    return controlPlane.serviceAccountToken(namespace(), operatorServiceAccount(), ttl);
  }

  /** A token of the agent's ServiceAccount bound to nothing, so naming no node. */
  String agentUnboundToken(Duration ttl) {
    return agentToken(ttl, null);
  }

  private String agentToken(Duration ttl, BoundObjectReference boundTo) {
    return controlPlane.serviceAccountToken(namespace(), agentServiceAccount(), ttl, boundTo);
  }

  /** The objects of the release as helm recorded them ({@code helm get manifest}). */
  /**
   * The test kit's own values for a release on {@code cluster}'s kubelet nodes, none of them the
   * runtime's: the API server through the node bridge's proxy (no kube-proxy, so no Service
   * routing), the agent's state dir in the node's own {@code /opt} (the nodes share the host's
   * {@code /var/lib}), the kubelet's root dir where each node shows its own; then {@code more} helm
   * arguments.
   */
  public static String[] onNodes(KubeletCluster cluster, String... more) {
    URI api = URI.create(cluster.bridge().apiServerUrl());
    List<String> args =
        new ArrayList<>(
            List.of(
                "--set-string",
                "apiServer.host=" + api.getHost(),
                "--set",
                "apiServer.port=" + api.getPort(),
                "--set-string",
                "agent.hostPaths.stateDir=/opt/cni-operator/state",
                "--set-string",
                "agent.kubeletPlugin.rootDir=" + KubeletNode.KUBELET_DIR_IN_NODE));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /**
   * What a user sets for nodes of {@code runtime}, as the install guide says: nothing for
   * containerd (the chart's default profile), the chart's profile for it otherwise ({@code
   * agent.hostPaths.profile=crio}).
   */
  public static String[] runtimeValues(RuntimeRelease runtime) {
    return runtime instanceof ContainerdRelease
        ? new String[0]
        : new String[] {"--set", "agent.hostPaths.profile=" + runtime.chartProfile()};
  }

  /**
   * Sets the agents' resync to {@code resync} ({@code AGENT_RESYNC_SECONDS}, which the chart leaves
   * at the agent's 60 s) and waits until they run with it: for a test that needs many passes and
   * does not test the default's length.
   */
  public void setAgentResync(KubeletCluster cluster, Duration resync, Duration timeout) {
    controlPlane
        .kubectl(
            "-n",
            namespace(),
            "set",
            "env",
            "daemonset",
            "-l",
            "app.kubernetes.io/component=agent",
            "AGENT_RESYNC_SECONDS=" + resync.toSeconds())
        .orThrow("kubectl set env of the agent");
    awaitProductRollout(cluster, timeout);
  }

  /** {@link #awaitRollout} of the agent's DaemonSet, then of the operator's Deployment. */
  public void awaitProductRollout(KubeletCluster cluster, Duration timeout) {
    String fullname = name + "-cni-operator";
    awaitRollout(cluster, "daemonset/" + fullname + "-agent", timeout);
    awaitRollout(cluster, "deployment/" + fullname + "-operator", timeout);
  }

  /**
   * Waits with {@code kubectl rollout status} until {@code workload} (e.g. {@code daemonset/x}) of
   * the release has rolled out on {@code cluster}; fails with the release's pods and the end of
   * their container logs.
   */
  public void awaitRollout(KubeletCluster cluster, String workload, Duration timeout) {
    CommandResult status =
        controlPlane.kubectl(
            timeout.plusSeconds(30),
            "-n",
            namespace(),
            "rollout",
            "status",
            workload,
            "--timeout=" + timeout.toSeconds() + "s");
    if (!status.ok()) {
      throw new AssertionError(
          "kubectl rollout status %s: %s%s\npods:\n%s\nlogs:\n%s"
              .formatted(
                  workload,
                  status.stdout(),
                  status.stderr(),
                  controlPlane.kubectl("-n", namespace(), "get", "pods", "-o", "wide").stdout(),
                  PodLogs.tails(cluster, namespace())));
    }
  }

  RenderedChart manifest() {
    return RenderedChart.parse(
        helm.run("get", "manifest", name, "--namespace", name)
            .orThrow("helm get manifest")
            .stdout());
  }

  /**
   * {@code helm upgrade} of this release to the chart it was installed from with {@code helmArgs},
   * without waiting.
   */
  CommandResult upgrade(String... helmArgs) {
    List<String> args = new ArrayList<>(List.of("upgrade", name));
    args.addAll(chart);
    args.addAll(List.of("--namespace", name, "--wait=false"));
    args.addAll(List.of(helmArgs));
    return helm.run(args.toArray(String[]::new));
  }

  /**
   * {@code helm <args>} as the release's user runs it (its kubeconfig, its helm home), allowed
   * {@code limit}: a command of the docs run verbatim.
   */
  CommandResult helm(Duration limit, List<String> args) {
    return helm.withLimit(limit).run(args);
  }

  /** {@code helm uninstall --wait}; the namespace stays until {@link #close()}. */
  CommandResult uninstall() {
    return helm.run("uninstall", name, "--namespace", name, "--wait", "--timeout", "2m");
  }

  /**
   * {@code helm uninstall} without {@code --wait}: helm still runs the hooks to their end, but does
   * not wait for the release's pods to go (one on a node that is down stays Terminating).
   */
  CommandResult uninstallNoWait() {
    return helm.run("uninstall", name, "--namespace", name, "--timeout", "4m");
  }

  @Override
  public void close() {
    helm.run("uninstall", name, "--namespace", name, "--ignore-not-found");
    controlPlane.client().namespaces().withName(name).delete();
  }
}
