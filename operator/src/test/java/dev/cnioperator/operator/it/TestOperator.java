package dev.cnioperator.operator.it;

import dev.cnioperator.operator.CniOperator;
import dev.cnioperator.operator.OperatorClients;
import dev.cnioperator.operator.OperatorSettings;
import dev.cnioperator.operator.taint.PodNetworkTaintSettings;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;

/**
 * The operator under test, running in this JVM against the shared local control plane with the CRDs
 * from crds/ installed; started once, restartable, stopped when the JVM exits.
 */
final class TestOperator {
  static final Duration FINALIZER_TIMEOUT = Duration.ofSeconds(20);

  /** The pod network taint the operator keeps, on nodes with an agent pod labelled so. */
  static final String POD_NETWORK_TAINT = "cnioperator.dev/pod-network-not-ready";

  static final String AGENT_LABEL = "cnioperator.dev/test-agent";

  private static TestOperator shared;

  private final LocalControlPlane controlPlane;
  private CniOperator operator;
  private KubernetesClient client;
  private SimpleMeterRegistry registry;

  private TestOperator(LocalControlPlane controlPlane) {
    this.controlPlane = controlPlane;
  }

  /** The running operator; installs the CRDs and starts it on first use. */
  static synchronized TestOperator shared() {
    if (shared == null) {
      LocalControlPlane cp = LocalControlPlane.shared();
      cp.kubectl("apply", "--server-side", "-f", ToolPaths.repoRoot().resolve("crds").toString())
          .orThrow("apply crds/");
      cp.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd", "--all")
          .orThrow("wait for the CRDs");
      shared = new TestOperator(cp);
      shared.start();
      TestOperator running = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(running::stop, "test-operator-stop"));
    }
    return shared;
  }

  LocalControlPlane controlPlane() {
    return controlPlane;
  }

  /** The meters of the current operator instance (JOSDK's reconciliation counters). */
  SimpleMeterRegistry registry() {
    return registry;
  }

  /** Starts the operator unless it runs already (two instances would both reconcile). */
  synchronized void start() {
    if (operator != null) {
      return;
    }
    registry = new SimpleMeterRegistry();
    client = OperatorClients.create(controlPlane.client().getConfiguration());
    operator =
        new CniOperator(
            client,
            new OperatorSettings("default", false, "test", FINALIZER_TIMEOUT)
                .withPodNetworkTaint(
                    PodNetworkTaintSettings.kept(
                        POD_NETWORK_TAINT, "default", AGENT_LABEL + "=true")),
            registry);
    operator.start();
  }

  /** Whether it runs with every informer connected and synced. */
  synchronized boolean ready() {
    return operator != null && operator.notReady().isEmpty();
  }

  synchronized void stop() {
    if (operator != null) {
      operator.close();
      operator = null;
      client.close();
    }
  }

  synchronized void restart() {
    stop();
    start();
  }
}
