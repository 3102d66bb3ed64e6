package dev.cnioperator.e2e;

import dev.cnioperator.testkit.CommandResult;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The README's first command: the product on the embedded local control plane. Starts the control
 * plane, installs the chart with the real helm, runs the operator and one node agent (sandbox host
 * root under {@code target/quickstart}, in network and mount namespaces of its own so that its
 * probe's bridge and reservations never reach the machine), applies an example network, waits for
 * {@code Ready}, and shows what happened and how to go on. Runs until interrupted, or exits when
 * given {@code --exit}.
 */
public final class Quickstart {
  static final String NODE = "quickstart-node";
  static final String EXAMPLE = "examples/bridge-hostlocal-portmap.yaml";
  static final String NETWORK = "bridge-net";

  /** How long a stop may take to close everything before the JVM halts regardless. */
  private static final Duration STOP_LIMIT = Duration.ofMinutes(1);

  private final PrintStream out;
  private final CountDownLatch closed = new CountDownLatch(1);

  Quickstart(PrintStream out) {
    this.out = out;
  }

  public static void main(String[] args) throws Exception {
    boolean exit = args.length > 0 && args[0].equals("--exit");
    int code = new Quickstart(System.out).run(exit);
    System.exit(code);
  }

  int run(boolean exitWhenReady) throws IOException, InterruptedException {
    Instant start = Instant.now();
    Path root = ToolPaths.repoRoot();
    Path work = root.resolve("target/quickstart");
    deleteTree(work);
    Files.createDirectories(work);

    step("starting the local control plane (etcd, kube-apiserver, kube-controller-manager)");
    try (LocalControlPlane cp = LocalControlPlane.start()) {
      Path kubeconfig = work.resolve("kubeconfig");
      Files.copy(cp.kubeconfigFile(), kubeconfig, StandardCopyOption.REPLACE_EXISTING);
      out.println("    API server " + cp.serverUrl());

      step(
          "helm install "
              + LocalProduct.RELEASE
              + " charts/cni-operator -n "
              + LocalProduct.NAMESPACE);
      try (LocalProduct product = LocalProduct.install(cp, work)) {
        step(
            "creating Node "
                + NODE
                + " (no kubelet here: the node is an object and a sandbox"
                + " directory)");
        String podCidr = product.createNode(NODE, Map.of("kubernetes.io/os", "linux"));
        out.println("    pod CIDR " + podCidr + " (the bridge example's host-local range on it)");

        step(
            "starting the operator and the node agent as local processes, with tokens of the"
                + " chart's ServiceAccounts; the agent in network and mount namespaces of its own,"
                + " so its probe's bridge and reservations stay off this machine");
        ProductProcess operator = product.startOperator("quickstart-operator");
        SandboxNode node = product.startAgentInNamespaces(NODE);

        step("kubectl apply -f " + EXAMPLE);
        show(cp.kubectl("apply", "-f", root.resolve(EXAMPLE).toString()));

        step("kubectl wait --for=condition=Ready cninetwork/" + NETWORK + " --timeout=180s");
        CommandResult ready =
            cp.kubectl(
                Duration.ofSeconds(200),
                "wait",
                "--for=condition=Ready",
                "cninetwork/" + NETWORK,
                "--timeout=180s");
        show(ready);
        if (!ready.ok()) {
          out.println("The network did not become Ready. Its status and the processes' logs:");
          show(cp.kubectl("describe", "cninetwork", NETWORK));
          out.println("operator log: " + operator.log());
          out.println("agent log:    " + node.agent().log());
          return 1;
        }

        step("kubectl get cninetworks,cninodes");
        show(cp.kubectl("get", "cninetworks,cninodes"));

        String fileName = "50-" + NETWORK + ".conflist";
        step("the conflist on the sandbox node: " + node.confDir().resolve(fileName));
        out.println(node.conflist(fileName).orElse("(missing!)"));

        out.printf("%nReady in %d s.%n%n", Duration.between(start, Instant.now()).toSeconds());
        out.println("Go on from another shell:");
        out.println("  export KUBECONFIG=" + kubeconfig);
        out.println("  " + ToolPaths.kubectl() + " get cni");
        out.println("  " + ToolPaths.kubectl() + " describe cninetwork " + NETWORK);
        out.println("  " + ToolPaths.kubectl() + " apply -f examples/cni-1.1.yaml");
        out.println("  ls " + node.confDir());
        out.println("Logs: " + operator.log() + " and " + node.agent().log());
        if (exitWhenReady) {
          out.println("Stopping (--exit).");
          return 0;
        }
        out.println("Press Ctrl-C to stop everything (the control plane's data goes with it).");
        awaitShutdown();
        return 0;
      }
    } finally {
      closed.countDown();
    }
  }

  /**
   * Returns once the JVM is asked to stop (Ctrl-C, SIGTERM, SIGHUP). The shutdown hook then waits
   * for {@link #run} to have closed the processes and the control plane: the JVM halts as soon as
   * its hooks return, and would otherwise leave etcd, kube-apiserver and the agent running.
   */
  private void awaitShutdown() throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.countDown();
                  try {
                    closed.await(STOP_LIMIT.toSeconds(), TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "quickstart-stop"));
    stop.await();
    out.println("Stopping.");
  }

  private void step(String what) {
    out.println("==> " + what);
  }

  private void show(CommandResult r) {
    if (!r.stdout().isBlank()) {
      out.print(r.stdout().endsWith("\n") ? r.stdout() : r.stdout() + "\n");
    }
    if (!r.stderr().isBlank()) {
      out.print(r.stderr().endsWith("\n") ? r.stderr() : r.stderr() + "\n");
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
