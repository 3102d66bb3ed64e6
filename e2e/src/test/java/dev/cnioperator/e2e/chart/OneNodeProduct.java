package dev.cnioperator.e2e.chart;

import dev.cnioperator.e2e.Helm;
import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.node.KubeletCluster;
import dev.cnioperator.testkit.node.KubeletNode;
import java.time.Duration;

/**
 * One kubelet node with the product installed as users install it: {@code bin/publish} into the
 * cluster's registry, {@code helm install --wait} with the chart's defaults and the test kit's own
 * values, and a namespace for the test's pods. Closing it uninstalls and stops the cluster.
 */
final class OneNodeProduct implements AutoCloseable {
  /** How long {@code helm install --wait} may take: the node pulls both images first. */
  static final Duration INSTALL_WAIT = Duration.ofMinutes(4);

  final KubeletCluster cluster;
  final LocalControlPlane cp;
  final KubeletNode node;
  final ChartRelease release;
  final String apps;
  private final String prefix;
  private final long started;

  private OneNodeProduct(
      KubeletCluster cluster, ChartRelease release, String prefix, long started) {
    this.prefix = prefix;
    this.started = started;
    this.cluster = cluster;
    this.cp = cluster.controlPlane();
    this.node = cluster.nodes().get(0);
    this.release = release;
    this.apps = NodePods.appsNamespace(cp.client());
  }

  /**
   * Starts the node (Debian's containerd 1.6) and installs the product as release {@code
   * prefix}-...
   */
  static OneNodeProduct install(String prefix) {
    return install(prefix, ContainerdRelease.DEBIAN_1_6);
  }

  /**
   * As {@link #install(String)}, the node running {@code runtime}, installed with what the install
   * guide says to set for it ({@link ChartRelease#runtimeValues}).
   */
  static OneNodeProduct install(String prefix, RuntimeRelease runtime) {
    long started = System.nanoTime();
    KubeletCluster cluster = KubeletCluster.start(1, runtime);
    try {
      PublishedProduct product = PublishedProduct.publish(cluster, Helm.provisioned());
      ChartRelease release =
          ChartRelease.installAndWait(
              cluster.controlPlane(),
              product,
              prefix,
              INSTALL_WAIT,
              ChartRelease.onNodes(cluster, ChartRelease.runtimeValues(runtime)));
      return new OneNodeProduct(cluster, release, prefix, started);
    } catch (RuntimeException | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Uninstalls, stops the cluster and prints how long the class took, set-up included. */
  @Override
  public void close() {
    try {
      release.close();
    } finally {
      cluster.close();
      System.out.printf(
          "event=%s-e2e total_ms=%d%n", prefix, (System.nanoTime() - started) / 1_000_000);
    }
  }
}
