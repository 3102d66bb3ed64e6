package dev.cnioperator.testkit.node;

import dev.cnioperator.testkit.LocalControlPlane;
import dev.cnioperator.testkit.ToolPaths;
import dev.cnioperator.testkit.containerd.ContainerdRelease;
import dev.cnioperator.testkit.cri.RuntimeRelease;
import dev.cnioperator.testkit.crio.CrioRelease;
import dev.cnioperator.testkit.images.LocalRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A control plane for real nodes ({@link LocalControlPlane#startForNodes}), a {@link NodeBridge}
 * and {@code n} {@link KubeletNode}s on it: what a cluster-tier test starts and closes as one.
 * Closing stops the nodes first (their pods get their CNI DEL), then the registry if one was
 * started, the bridge, then the control plane, and reports everything that was left behind.
 */
public final class KubeletCluster implements AutoCloseable {
  /** The range the tests' Node podCIDRs (/24 each) are allocated from. */
  public static final String CLUSTER_CIDR = "10.232.0.0/16";

  private final LocalControlPlane controlPlane;
  private final NodeBridge bridge;
  private final List<KubeletNode> nodes = new ArrayList<>();
  private final Duration syncFrequency;
  private final Path kubelet;

  /** Bridge addresses are never reused, so a node added after one was closed gets a fresh one. */
  private int nextIndex;

  private LocalRegistry registry;

  private KubeletCluster(
      LocalControlPlane controlPlane, NodeBridge bridge, Duration syncFrequency, Path kubelet) {
    this.controlPlane = controlPlane;
    this.bridge = bridge;
    this.syncFrequency = syncFrequency;
    this.kubelet = kubelet;
  }

  /** As {@link #start(int, ContainerdRelease)} with Debian's containerd 1.6. */
  public static KubeletCluster start(int nodeCount) {
    return start(nodeCount, ContainerdRelease.DEBIAN_1_6);
  }

  /**
   * Starts the control plane and {@code nodeCount} nodes running {@code release} (a containerd or a
   * CRI-O release), all registered (NotReady, no CNI).
   */
  public static KubeletCluster start(int nodeCount, RuntimeRelease release) {
    return start(nodeCount, release, KubeletNode.TEST_SYNC_FREQUENCY);
  }

  /**
   * As {@link #start(int, ContainerdRelease)}, every kubelet syncing its pods every {@code
   * syncFrequency} ({@link KubeletNode#KUBELET_DEFAULT_SYNC_FREQUENCY} to measure as clusters run).
   */
  public static KubeletCluster start(
      int nodeCount, RuntimeRelease release, Duration syncFrequency) {
    return start(
        nodeCount, release, syncFrequency, ToolPaths.kubernetesBinDir(), ToolPaths.kubelet());
  }

  /**
   * Starts the control plane and {@code nodeCount} nodes running Debian's containerd 1.6 on the
   * Kubernetes release in {@code bin} (kube-apiserver, kube-controller-manager, kube-scheduler and
   * kubelet; etcd and kubectl stay the pinned release's), for a cluster upgraded later ({@link
   * LocalControlPlane#upgradeTo}, {@link KubeletNode#upgradeKubelet}).
   */
  public static KubeletCluster startOn(Path bin, int nodeCount) {
    return start(
        nodeCount,
        ContainerdRelease.DEBIAN_1_6,
        KubeletNode.TEST_SYNC_FREQUENCY,
        bin,
        bin.resolve("kubelet"));
  }

  private static KubeletCluster start(
      int nodeCount,
      RuntimeRelease release,
      Duration syncFrequency,
      Path controlPlaneBin,
      Path kubelet) {
    String hostAddress = NodeBridge.freeHostAddress();
    LocalControlPlane cp =
        LocalControlPlane.startForNodes(CLUSTER_CIDR, List.of(hostAddress), controlPlaneBin);
    KubeletCluster cluster;
    try {
      cluster = new KubeletCluster(cp, NodeBridge.create(cp, hostAddress), syncFrequency, kubelet);
    } catch (RuntimeException e) {
      cp.close();
      throw e;
    }
    try {
      for (int i = 0; i < nodeCount; i++) {
        cluster.addNode(release);
      }
    } catch (RuntimeException e) {
      try {
        cluster.close();
      } catch (RuntimeException closing) {
        e.addSuppressed(closing);
      }
      throw e;
    }
    return cluster;
  }

  public LocalControlPlane controlPlane() {
    return controlPlane;
  }

  public NodeBridge bridge() {
    return bridge;
  }

  public List<KubeletNode> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * Starts one more node running {@code release} (nodes of several releases and runtimes can share
   * a cluster, as during a runtime upgrade). The cluster closes it with the others; a test may
   * close it earlier. A CRI-O node pulls every image, its pause image too, from the cluster's
   * registry, which is started for it.
   */
  public KubeletNode addNode(RuntimeRelease release) {
    LocalRegistry pullFrom = release instanceof CrioRelease ? registry() : null;
    KubeletNode node =
        KubeletNode.start(
            controlPlane, bridge, nextIndex++, release, syncFrequency, kubelet, pullFrom);
    nodes.add(node);
    if (registry != null) {
      node.trustPlainHttpRegistry(registry.hostPort());
    }
    return node;
  }

  /**
   * The cluster's container registry, started on first use on the host's bridge address, where
   * every node's containerd pulls from it over plain HTTP; the cluster closes it.
   */
  public synchronized LocalRegistry registry() {
    if (registry == null) {
      registry = LocalRegistry.start(bridge.hostAddress());
      // Not the nodes a test closed already: their runtime's directory is gone with them.
      nodes.stream()
          .filter(n -> !n.isClosed())
          .forEach(n -> n.trustPlainHttpRegistry(registry.hostPort()));
    }
    return registry;
  }

  /** Imports an image tarball into every node's containerd. */
  public void importImage(Path tarball) {
    nodes.forEach(n -> n.importImage(tarball));
  }

  @Override
  public void close() {
    List<String> problems = new ArrayList<>();
    for (int i = nodes.size() - 1; i >= 0; i--) {
      try {
        nodes.get(i).close();
      } catch (RuntimeException e) {
        problems.add(e.getMessage());
      }
    }
    if (registry != null) {
      registry.close();
    }
    bridge.close();
    controlPlane.close();
    if (!problems.isEmpty()) {
      throw new IllegalStateException("the cluster left things behind: " + problems);
    }
  }
}
