package dev.cnioperator.e2e;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.Commands;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.TestNames;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.node.SandboxNamespaces;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole product on a local control plane, as a user would run it: the chart installed with the
 * real {@code helm}, and the operator and node agents run as processes that authenticate with
 * tokens of the chart's own ServiceAccounts, so the chart's RBAC and admission policy are what they
 * get. There are no kubelets: Nodes are objects, and each agent gets a sandbox host root.
 */
public final class LocalProduct implements AutoCloseable {
  public static final String NAMESPACE = "cni-system";
  public static final String RELEASE = "cni-operator";
  public static final String OPERATOR_ACCOUNT = RELEASE + "-operator";
  public static final String AGENT_ACCOUNT = RELEASE + "-agent";
  private static final Duration TOKEN_TTL = Duration.ofHours(24);

  private final LocalControlPlane controlPlane;
  private final Path workDir;
  private final Helm helm;
  private final List<ProductProcess> processes = new ArrayList<>();
  private final List<SandboxNamespaces> namespaces = new ArrayList<>();

  private LocalProduct(LocalControlPlane controlPlane, Path workDir) {
    this.controlPlane = controlPlane;
    this.workDir = workDir;
    this.helm = Helm.inHome(workDir.resolve("helm")).withKubeconfig(controlPlane.kubeconfigFile());
  }

  /** {@code helm install} of the chart into {@code controlPlane}; extra args go to helm. */
  public static LocalProduct install(
      LocalControlPlane controlPlane, Path workDir, String... helmArgs) {
    LocalProduct product = new LocalProduct(controlPlane, workDir);
    product.helm.install(RELEASE, NAMESPACE, helmArgs).orThrow("helm install");
    return product;
  }

  public LocalControlPlane controlPlane() {
    return controlPlane;
  }

  public KubernetesClient client() {
    return controlPlane.client();
  }

  /** Runs the real helm against the control plane. */
  public CommandResult helm(List<String> args) {
    return helm.run(args);
  }

  /**
   * Creates a Node object (there is no kubelet to do it), with a pod CIDR of its own as
   * kube-controller-manager would assign; returns that pod CIDR.
   */
  public String createNode(String name, Map<String, String> labels) {
    String cidr = TestNames.podCidr();
    createNode(name, labels, cidr);
    return cidr;
  }

  /** Creates a Node object with {@code podCidr}, or none yet when it is null. */
  public void createNode(String name, Map<String, String> labels, String podCidr) {
    List<String> cidrs = podCidr == null ? List.of() : List.of(podCidr);
    client()
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .withNewSpec()
                .withPodCIDR(podCidr)
                .withPodCIDRs(cidrs)
                .endSpec()
                .build())
        .serverSideApply();
  }

  /** Starts the operator as its chart ServiceAccount. */
  public ProductProcess startOperator(String identity) {
    return startOperator(identity, ProcessOptions.DEFAULT);
  }

  /** As {@link #startOperator(String)}, run with {@code options}. */
  public ProductProcess startOperator(String identity, ProcessOptions options) {
    String token = controlPlane.serviceAccountToken(NAMESPACE, OPERATOR_ACCOUNT, TOKEN_TTL);
    Path kubeconfig =
        kubeconfig(
            token, dir(workDir.resolve("operator")).resolve(identity + ".kubeconfig"), options);
    ProductProcess p =
        ProductProcess.start(
            "operator " + identity,
            ToolPaths.repoRoot().resolve("operator/target/cni-operator.jar"),
            List.of(
                "--kubeconfig",
                kubeconfig.toString(),
                "--namespace",
                NAMESPACE,
                "--identity",
                identity,
                // Port 0: the operator binds a free port itself and logs it. A port found free
                // here and passed on can be taken by any connection before the operator binds it
                // (seen: "BindException: Address already in use", the operator exited at start).
                "--metrics-port",
                "0"),
            workDir.resolve("operator/" + identity + ".log"),
            options);
    processes.add(p);
    return p;
  }

  /**
   * Runs {@code cni-operator args...} to completion with a token of {@code serviceAccount} in the
   * release's namespace, as a Job of the chart running as that account would.
   */
  public CommandResult runOperatorCommand(
      String serviceAccount, List<String> args, Duration timeout) {
    String token = controlPlane.serviceAccountToken(NAMESPACE, serviceAccount, TOKEN_TTL);
    Path kubeconfig =
        controlPlane.writeKubeconfigForToken(
            token, dir(workDir.resolve("commands")).resolve(serviceAccount + ".kubeconfig"));
    List<String> cmd = new ArrayList<>();
    cmd.add(ProcessHandle.current().info().command().orElse("java"));
    cmd.addAll(
        List.of(
            "-jar",
            ToolPaths.repoRoot().resolve("operator/target/cni-operator.jar").toString(),
            "--kubeconfig",
            kubeconfig.toString()));
    cmd.addAll(args);
    return Commands.run(cmd, Map.of(), null, timeout);
  }

  /**
   * Starts a node agent for {@code nodeName} with a sandbox host root under the work dir, the
   * reference plugins as its bundled plugins and the machine's real netns directory. Its token is
   * bound to a Pod on that node, as a DaemonSet pod's projected token is, so the node's name is in
   * the token and the chart's admission policy can hold the agent to its own CniNode.
   */
  public SandboxNode startAgent(String nodeName) {
    return startAgent(nodeName, null);
  }

  /**
   * As {@link #startAgent(String)}, with the agent's result cache in {@code cacheDir} instead of
   * the sandbox (cnitool always caches in libcni's {@code /var/lib/cni}; an agent that must see
   * cnitool's attachments reads that one).
   */
  public SandboxNode startAgent(String nodeName, Path cacheDir) {
    return startAgent(nodeName, cacheDir, ProcessOptions.DEFAULT);
  }

  /** As {@link #startAgent(String, Path)}, run with {@code options}. */
  public SandboxNode startAgent(String nodeName, Path cacheDir, ProcessOptions options) {
    Path root = dir(workDir.resolve("nodes/" + nodeName));
    String token = agentToken(nodeName);
    Path kubeconfig = kubeconfig(token, root.resolve("agent.kubeconfig"), options);
    SandboxNode layout = new SandboxNode(nodeName, root, cacheDir, null);
    ProductProcess agent =
        ProductProcess.start(
            "agent " + nodeName,
            ToolPaths.repoRoot().resolve("node-agent/target/cni-node-agent.jar"),
            List.of(
                "run",
                "--node-name",
                nodeName,
                "--kubeconfig",
                kubeconfig.toString(),
                "--conf-dir",
                dir(layout.confDir()).toString(),
                "--bin-dir",
                dir(layout.binDir()).toString(),
                "--cache-dir",
                dir(layout.cacheDir()).toString(),
                "--state-dir",
                dir(layout.stateDir()).toString(),
                // Never the machine's own: the agent writes and reads Multus's dirs.
                "--multus-conf-dir",
                layout.multusConfDir().toString(),
                "--multus-cache-dir",
                layout.multusCacheDir().toString(),
                "--netns-dir",
                "/var/run/netns",
                "--bundled-plugin-dir",
                ToolPaths.pluginDir().toString(),
                // Port 0, as for the operator: the agent binds a free port itself and logs it.
                "--listen",
                "127.0.0.1:0"),
            root.resolve("agent.log"),
            options);
    processes.add(agent);
    return new SandboxNode(nodeName, root, cacheDir, agent);
  }

  /**
   * As {@link #startAgent(String)}, in a network and a mount namespace of its own ({@link
   * SandboxNamespaces}): what its probes make (a bridge, veths, addresses, iptables rules,
   * host-local's reservations) stays off this machine and goes when the agent stops.
   */
  public SandboxNode startAgentInNamespaces(String nodeName) {
    Path root = dir(workDir.resolve("nodes/" + nodeName));
    SandboxNamespaces ns =
        SandboxNamespaces.start(
            new SandboxNode(nodeName, root, null, null).cacheDir(),
            controlPlane.apiServerPort(),
            root.resolve("namespaces.log"));
    namespaces.add(ns);
    return startAgent(
        nodeName, null, ProcessOptions.DEFAULT.runUnder(ns.launcher().toArray(String[]::new)));
  }

  /** A kubeconfig for {@code token}, naming the proxy of {@code options} when it has one. */
  private Path kubeconfig(String token, Path file, ProcessOptions options) {
    Path direct = controlPlane.writeKubeconfigForToken(token, file);
    if (options.apiServer() == null) {
      return direct;
    }
    return options
        .apiServer()
        .writeKubeconfig(direct, file.resolveSibling("proxied-" + file.getFileName()));
  }

  /** A token of the agent's ServiceAccount bound to a (never running) agent Pod on the node. */
  public String agentToken(String nodeName) {
    Pod pod =
        client()
            .pods()
            .inNamespace(NAMESPACE)
            .resource(
                AgentIdentity.pod(nodeName, AGENT_ACCOUNT)
                    .withNewMetadata()
                    .withName(AGENT_ACCOUNT + "-" + nodeName)
                    .withLabels(Map.of("app.kubernetes.io/component", "e2e-agent-identity"))
                    .endMetadata()
                    .build())
            .serverSideApply();
    return controlPlane.serviceAccountToken(
        NAMESPACE, AGENT_ACCOUNT, TOKEN_TTL, AgentIdentity.boundTo("Pod", pod.getMetadata()));
  }

  /** {@code helm uninstall}, waiting for the release's objects to go. */
  public CommandResult uninstall() {
    return helm(
        List.of("uninstall", RELEASE, "--namespace", NAMESPACE, "--wait", "--timeout", "120s"));
  }

  /**
   * The last {@code lines} lines of every operator's and agent's log, each under its process's name
   * and state, for a failed test to print; stack frames left out, so that the lines are events.
   */
  public String logTails(int lines) {
    StringBuilder out = new StringBuilder();
    for (ProductProcess p : processes) {
      List<String> all =
          p.output().lines().filter(l -> !l.startsWith("\tat ") && !l.startsWith("\t...")).toList();
      out.append("----- ")
          .append(p.name())
          .append(p.isAlive() ? " (running)" : " (exited)")
          .append(", last ")
          .append(Math.min(lines, all.size()))
          .append(" of ")
          .append(all.size())
          .append(" lines (stack frames left out) of ")
          .append(p.log())
          .append('\n');
      all.subList(Math.max(0, all.size() - lines), all.size())
          .forEach(l -> out.append(l).append('\n'));
    }
    return out.toString();
  }

  /** Stops the operator and agent processes; the release stays installed. */
  public void stopProcesses() {
    for (ProductProcess p : processes) {
      p.stop();
    }
  }

  /**
   * Stops the processes, ends the namespaces they ran in and uninstalls the release if it is still
   * installed.
   */
  @Override
  public void close() {
    stopProcesses();
    namespaces.forEach(SandboxNamespaces::close);
    namespaces.clear();
    // The release name is fixed and the control plane is shared: a release left installed makes
    // the next test's helm install fail ("cannot re-use a name that is still in use").
    helm(List.of("uninstall", RELEASE, "--namespace", NAMESPACE, "--ignore-not-found"));
  }

  private static Path dir(Path p) {
    try {
      return Files.createDirectories(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
